#!/usr/bin/env bash
# End-to-end proof on every change (called by .ci/run after the tests):
# experiments/ci.yaml builds every runtime, trains the Leyden AOT cache,
# measures every service and renders the reports; then the run is checked,
# re-rendered, compared with itself, and the services' answers are checked
# for equivalence with `runner verify`; last the users API study
# (experiments/node-vs-go.yaml) is verified and run with --quick=5 --repeats=1
# (its memory phases are what no cheaper test runs: one fresh process per
# runtime shows them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/jdk25.sh
runner=${RUNNER:-$root/target/release/runner}
results=$root/results/ci

fail() { echo "ci-e2e: $*" >&2; exit 1; }

echo "== runner exec experiments/ci.yaml"
before=$( (find "$results" -mindepth 1 -maxdepth 1 -type d 2>/dev/null || true) | sort | tail -n 1)
"$runner" exec experiments/ci.yaml
run=$(find "$results" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
[ -n "$run" ] && [ "$run" != "$before" ] || fail "no new run directory under $results"
echo "run directory: $run"

python3 - "$run" <<'PY'
import csv, json, sys, pathlib
run = pathlib.Path(sys.argv[1])
def fail(msg):
    sys.exit(f"ci-e2e: {msg} ({run})")
status = json.loads((run / "status.json").read_text())
if status["state"] != "complete":
    fail(f"run state is {status['state']}")
plan = json.loads((run / "plan.json").read_text())
rows = list(csv.DictReader(open(run / "measurements.csv")))
if sorted(r["cell_id"] for r in rows) != sorted(c["id"] for c in plan["cells"]):
    fail("measurements.csv does not hold exactly one row per planned cell")
for r in rows:
    if r["status"] == "failed" or int(r["requests"]) == 0:
        fail(f"cell {r['cell_id']} failed or measured nothing: {r['reason']}")
configs = {c["runtime"]: c for c in csv.DictReader(open(run / "configurations.csv"))}
for name, c in configs.items():
    if c["status"] != "ran":
        fail(f"runtime {name} did not run: {c['reason']}")
aot = configs["jdk-leyden-aot"]
if aot["trained"] != "true" or not aot["training_evidence"]:
    fail("jdk-leyden-aot was not trained, or the AOT cache's use was not proven in its log")
for f in ["report.md", "report.html", "summary-by-cell.csv", "peak-throughput.csv"]:
    if not (run / f).is_file():
        fail(f"{f} missing")
if not list((run / "charts").glob("*.svg")):
    fail("no charts")
print(f"ci-e2e: {len(rows)} cells measured, {len(configs)} runtimes ran; "
      f"AOT evidence: {aot['training_evidence'][:100]}")
PY

echo "== runner report (re-render from the run directory alone)"
"$runner" report "$run" >/dev/null

echo "== runner compare (a run with itself: never a regression; 0, or 3 when its repeats cannot see 5%)"
rc=0
"$runner" compare "$run" "$run" >/dev/null || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
  echo "ci-e2e: runner compare of a run with itself exited $rc" >&2
  exit 1
fi

echo "== runner verify experiments/contract.yaml (the services answer alike)"
"$runner" verify experiments/contract.yaml

echo "== runner verify experiments/node-vs-go.yaml (the users API answers alike)"
"$runner" verify experiments/node-vs-go.yaml

echo "== runner exec --quick=5 --repeats=1 experiments/node-vs-go.yaml (memory phases on fresh processes)"
users_results=$root/results/node-vs-go
"$runner" exec --quick=5 --repeats=1 experiments/node-vs-go.yaml
users_run=$(find "$users_results" -mindepth 1 -maxdepth 1 -type d -name '2*' | sort | tail -n 1)
python3 - "$users_run" <<'PY'
import csv, json, pathlib, sys
run = pathlib.Path(sys.argv[1])
rows = list(csv.DictReader(open(run / "memory-phases.csv")))
runtimes = {r["runtime"] for r in rows}
per_runtime = json.loads((run / "plan.json").read_text())["memory"]["repeats"]
if len(rows) != per_runtime * len(runtimes) or len(runtimes) != 3:
    sys.exit(f"ci-e2e: memory-phases.csv has {len(rows)} rows for {sorted(runtimes)}, want {per_runtime} per runtime ({run})")
for r in rows:
    if r["status"] != "ok" or not r["idle_rss_bytes"] or not r["after_rss_bytes"]:
        sys.exit(f"ci-e2e: memory process {r['runtime']} #{r['process']}: {r['status']} {r['reason']} ({run})")
if "## Memory in phases" not in (run / "report.md").read_text():
    sys.exit(f"ci-e2e: report.md has no memory phases section ({run})")
print(f"memory phases: {len(rows)} fresh processes, all ok")
PY

echo "ci-e2e: passed"
