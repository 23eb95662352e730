#!/usr/bin/env bash
# `repeats: { until: decided }` against a fixed design (issue 28, part 3).
# Runs experiments/findings-fixed.yaml (8 repeats of six Go runtimes whose
# cost is set by WORK_FACTOR) and experiments/findings-decided.yaml (3 to 8,
# until every runtime's findings are settled) interleaved, A/B/A/B by
# default (ROUNDS=2), on this host, then prints per run its wall time, cells
# and repeats per runtime, and its findings on throughput, CPU per request
# and memory (findings.json), and whether each decided run states the same
# leads (`better_than` pairs, closed under transitivity) as the fixed run
# before it.
#   scripts/decided-vs-fixed.sh             # ROUNDS=2: fixed, decided, fixed, decided
#   scripts/decided-vs-fixed.sh RUN_DIR...  # the tables of past runs, in order
# About 25 minutes on a 2-core host. Nothing here is tuned to the host.
set -euo pipefail
cd "$(dirname "$0")/.."

latest_run() { ls -d "results/$1"/2*/ 2>/dev/null | sort | tail -1; }

cargo build --release --locked --quiet --bin runner
runs=()
if [ $# -ge 1 ]; then
  runs=("$@")
else
  for _ in $(seq "${ROUNDS:-2}"); do
    for design in findings-fixed findings-decided; do
      # Exit 1 (a failed cell) still leaves a run to read.
      target/release/runner exec "experiments/$design.yaml" || true
      runs+=("$(latest_run "$design")")
    done
  done
fi

python3 - "${runs[@]}" <<'PY'
import csv, json, sys
from datetime import datetime
from pathlib import Path

def load(run):
    run = Path(run)
    status = json.loads((run / "status.json").read_text())
    t = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
    with open(run / "measurements.csv") as f:
        cells = len(list(csv.DictReader(f)))
    with open(run / "repeats.csv") as f:
        repeats = {r["runtime"]: (r["repeats"], r["stop"]) for r in csv.DictReader(f)}
    findings = json.loads((run / "findings.json").read_text())
    leads = set()
    lines = []
    for m in findings["measures"]:
        if m["measure"] == "p99":
            continue
        lines.append(f"  {m['label']}: {m['ordering'] or ''}".replace("`", ""))
        for f in m["findings"]:
            lines.append("    - " + f["text"].replace("`", ""))
            for better, worse in f["better_than"]:
                leads.add((m["measure"], better, worse))
    # What the findings imply: a > b and b > c state a > c too.
    while True:
        implied = {(m, a, d) for (m, a, b) in leads for (n, c, d) in leads if m == n and b == c}
        if implied <= leads:
            break
        leads |= implied
    return {"run": run, "name": status["experiment"], "cells": cells, "repeats": repeats,
            "wall": (t(status["updated_at"]) - t(status["started_at"])).total_seconds(),
            "lines": lines, "leads": leads}

runs = [load(r) for r in sys.argv[1:]]
print("| run | design | wall time | cells | repeats per runtime (stop) |")
print("|---|---|---:|---:|---|")
for r in runs:
    reps = ", ".join(f"{rt} {n} ({stop})" for rt, (n, stop) in r["repeats"].items())
    print(f"| {r['run'].name} | {r['name']} | {r['wall']:.0f} s | {r['cells']} | {reps} |")
for r in runs:
    print(f"\n{r['name']} {r['run'].name}:")
    print("\n".join(r["lines"]))
fixed = None
for r in runs:
    if r["name"] == "findings-fixed":
        fixed = r
    elif fixed is not None:
        same = r["leads"] == fixed["leads"]
        print(f"\n{r['run'].name} vs {fixed['run'].name}: same leads: {same}; wall time "
              f"{r['wall']:.0f} s vs {fixed['wall']:.0f} s ({r['wall'] / fixed['wall']:.2f}x)")
        if not same:
            print("  only decided:", sorted(r["leads"] - fixed["leads"]))
            print("  only fixed:  ", sorted(fixed["leads"] - r["leads"]))
PY
