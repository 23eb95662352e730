#!/usr/bin/env bash
# Adaptive repeats and automatic warmup against a fixed design (issue 11,
# part 7). Runs, one after the other on this host, the same Go + JVM matrix
# (payload 7 and 2048, concurrency 1, 12 and 96; 3 s windows) three ways:
#   fixed        experiments/adaptive-repeats-fixed.yaml        5 repeats, 2 s cell warmup
#   adaptive     experiments/adaptive-repeats.yaml              3 to 10 repeats until the 95%
#                                                               interval is within 3%, 2 s warmup
#   auto-warmup  experiments/adaptive-repeats-auto-warmup.yaml  5 repeats, `cell: auto, max: 15s`
# then prints per configuration the repeats each run took and the half-width
# of the 95% interval of its throughput (repeats.csv), the wall time, cells
# and service starts of each run, and a replay of the stop rule on the
# adaptive run's repeats for other targets, with the configuration's own
# interval (exec's rule) and with a runtime-pooled one
# (examples/adaptive-replay.rs).
#   scripts/adaptive-vs-fixed.sh                          # run all three, then the tables
#   scripts/adaptive-vs-fixed.sh FIXED ADAPTIVE [AUTO]    # the tables of past runs
# All three take about 20 to 45 minutes on a 2-core host. The host's noise
# is what it is: nothing here is tuned to it; rerun to see the figures move.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk25.sh

latest_run() { ls -d "results/$1"/2*/ 2>/dev/null | sort | tail -1; }

cargo build --release --locked --quiet --bin runner --example adaptive-replay
if [ $# -ge 2 ]; then
  runs=("fixed=$1" "adaptive=$2")
  [ $# -ge 3 ] && runs+=("auto-warmup=$3")
else
  runs=()
  for pair in fixed:adaptive-repeats-fixed adaptive:adaptive-repeats auto-warmup:adaptive-repeats-auto-warmup; do
    # Exit 1 (a failed cell, a skipped runtime) still leaves a run to read.
    target/release/runner exec "experiments/${pair#*:}.yaml" || true
    runs+=("${pair%%:*}=$(latest_run "${pair#*:}")")
  done
fi

python3 - "${runs[@]}" <<'PY'
import csv, json, sys
from datetime import datetime
from pathlib import Path

def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))

def load(label, run):
    run = Path(run)
    status = json.loads((run / "status.json").read_text())
    t = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
    measured = rows(run / "measurements.csv")
    warmups = [float(m.get("warmup_s") or 0) for m in measured]
    return {
        "label": label, "run": run, "state": status["state"],
        "wall": (t(status["updated_at"]) - t(status["started_at"])).total_seconds(),
        "repeats": {r["config_id"]: r for r in rows(run / "repeats.csv")},
        "starts": sum(1 for r in rows(run / "lifecycle.csv") if r["phase"] == "measure"),
        "cells": len(measured),
        "warmup": sum(warmups) / len(warmups) if warmups else 0.0,
    }

runs = [load(*arg.split("=", 1)) for arg in sys.argv[1:]]
pct = lambda v: f"+-{float(v) * 100:.1f}%" if v else "-"
for r in runs:
    print(f"{r['label']}: {r['run']} ({r['state']})")
print()
head = "| configuration |" + "".join(f" {r['label']} repeats | {r['label']} 95% half-width |" for r in runs)
print(head + " adaptive stop |")
print("|---|" + "---:|---:|" * len(runs) + "---|")
configs = list(runs[0]["repeats"])
for config in configs:
    line = f"| {config} |"
    for r in runs:
        row = r["repeats"].get(config, {})
        line += f" {row.get('repeats', '-')} | {pct(row.get('half_width'))} |"
    stop = next((r["repeats"].get(config, {}).get("stop") for r in runs if r["label"] == "adaptive"), "-")
    print(line + f" {stop} |")
print()
print("| run | wall time | cells | service starts | mean cell warmup | median 95% half-width | configurations within +-3% / +-10% |")
print("|---|---:|---:|---:|---:|---:|---:|")
for r in runs:
    widths = sorted(float(x["half_width"]) for x in r["repeats"].values() if x["half_width"])
    median = widths[len(widths) // 2] if widths else float("nan")
    within = lambda bound: sum(1 for w in widths if w <= bound)
    print(f"| {r['label']} | {r['wall'] / 60:.1f} min | {r['cells']} | {r['starts']} | {r['warmup']:.1f} s "
          f"| +-{median * 100:.1f}% | {within(0.03)} / {within(0.10)} of {len(r['repeats'])} |")
PY

echo
for run in "${runs[@]}"; do
  if [ "${run%%=*}" = adaptive ]; then
    target/release/examples/adaptive-replay "${run#*=}"
  fi
done
