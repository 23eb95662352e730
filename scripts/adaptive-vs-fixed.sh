#!/usr/bin/env bash
# Adaptive repeats against a fixed design (issue 11, part 7): runs
# experiments/adaptive-repeats-fixed.yaml (5 repeats of every configuration)
# and experiments/adaptive-repeats.yaml (3 to 10 repeats, until the 95%
# interval of a configuration's throughput is within 3%), one after the
# other on this host, then prints per configuration the repeats each design
# took, the half-width of the interval it achieved and why the adaptive one
# stopped, and the wall time, cells and service starts of each run.
#   scripts/adaptive-vs-fixed.sh                # run both, then the table
#   scripts/adaptive-vs-fixed.sh FIXED_RUN ADAPTIVE_RUN   # the table of two past runs
# Both runs together take about 10 to 25 minutes on a 2-core host (3 s
# windows, 2 s cell warmups: see the specs). The host's noise is what it
# is: nothing here is tuned to it, so rerun it to see how the figures move.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk25.sh

latest_run() { ls -d "results/$1"/2*/ 2>/dev/null | sort | tail -1; }

if [ $# -eq 2 ]; then
  fixed=$1 adaptive=$2
else
  cargo build --release --locked --quiet
  # Exit 1 (a failed cell, a skipped runtime) still leaves a run to read.
  target/release/runner exec experiments/adaptive-repeats-fixed.yaml || true
  fixed=$(latest_run adaptive-repeats-fixed)
  target/release/runner exec experiments/adaptive-repeats.yaml || true
  adaptive=$(latest_run adaptive-repeats)
fi

python3 - "$fixed" "$adaptive" <<'PY'
import csv, json, sys
from datetime import datetime
from pathlib import Path

def load(run):
    run = Path(run)
    status = json.loads((run / "status.json").read_text())
    wall = (datetime.fromisoformat(status["updated_at"].replace("Z", "+00:00"))
            - datetime.fromisoformat(status["started_at"].replace("Z", "+00:00"))).total_seconds()
    repeats = {r["config_id"]: r for r in csv.DictReader(open(run / "repeats.csv"))}
    starts = sum(1 for r in csv.DictReader(open(run / "lifecycle.csv")) if r["phase"] == "measure")
    cells = sum(1 for _ in csv.DictReader(open(run / "measurements.csv")))
    return {"run": run, "state": status["state"], "wall": wall, "repeats": repeats,
            "starts": starts, "cells": cells}

fixed, adaptive = load(sys.argv[1]), load(sys.argv[2])
pct = lambda v: f"+-{float(v) * 100:.1f}%" if v else "-"
print(f"fixed:    {fixed['run']} ({fixed['state']})")
print(f"adaptive: {adaptive['run']} ({adaptive['state']})\n")
print(f"| configuration | fixed repeats | fixed 95% half-width | adaptive repeats | adaptive 95% half-width | adaptive stop |")
print(f"|---|---|---|---|---|---|")
within = {"fixed": 0, "adaptive": 0}
for config, f in fixed["repeats"].items():
    a = adaptive["repeats"].get(config.replace("adaptive-repeats-fixed", "adaptive-repeats"), {})
    for name, row in (("fixed", f), ("adaptive", a)):
        if row.get("half_width") and float(row["half_width"]) <= 0.03:
            within[name] += 1
    print(f"| {config} | {f['repeats']} | {pct(f['half_width'])} | {a.get('repeats', '-')} "
          f"| {pct(a.get('half_width'))} | {a.get('stop', '-')} |")
n = len(fixed["repeats"])
print()
print(f"| run | wall time | cells | service starts | configurations within +-3% |")
print(f"|---|---|---|---|---|")
for name, r in (("fixed 5", fixed), ("adaptive 3..10, 3%", adaptive)):
    key = "fixed" if name.startswith("fixed") else "adaptive"
    print(f"| {name} | {r['wall'] / 60:.1f} min | {r['cells']} | {r['starts']} | {within[key]} of {n} |")
PY
