#!/usr/bin/env bash
# The 2020 Helidon-vs-Go-Kit study end to end on a clean machine (issue 15: "experiments/2020.yaml
# validates, plans and runs with --quick on a clean machine (CI too)"). Runs
# `runner exec experiments/2020.yaml --quick=QUICK`, then checks from the run directory:
#   - the run completed; every planned cell of a runtime that ran was measured by request count
#     (requests > 0) and not failed;
#   - a runtime may be skipped only when it is the native image and `native-image` is not on PATH,
#     with a reason naming it; cells the plan skipped for their JDK (Helidon 4 on JDK 17) are in
#     status.json's skipped_cells with a reason naming the JDK, and no runtime lost all its cells;
#   - every JVM cell has a Native Memory Tracking row that read (nmt.csv status ok, committed bytes);
#   - every runtime that ran has a deployable size (configurations.csv deployable_bytes), and the jlink
#     image is smaller than the JDK the plain JVM runtime needs beside its jar;
#   - each fresh start's first requests were timed (first-requests.csv) for every runtime that ran;
#   - the report has the sections that show them.
#
#   scripts/ci-2020.sh               # QUICK=20 and REPEATS=1 by default: 5,000 requests a window, one
#                                    # repeat (no check here needs a second), about 2 min here
#   RUN=results/2020/<run-id> scripts/ci-2020.sh   # the same checks on a run already made
# RUNNER picks the binary (default target/release/runner, built when missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/jdk25.sh
spec=${SPEC:-experiments/2020.yaml}
quick=${QUICK:-20}
repeats=${REPEATS:-1}
runner=${RUNNER:-$root/target/release/runner}

fail() { echo "ci-2020: $*" >&2; exit 1; }
. scripts/lib/smoke.sh
smoke_build

rc=0
if [ -n "${RUN:-}" ]; then
  # Check a run already made (e.g. the reference run) without running anything.
  run=$RUN
  [ -f "$run/status.json" ] || fail "$run is not a run directory"
else
  smoke_run "$spec" --quick="$quick" --repeats="$repeats"
fi
echo "run directory: $run (runner exited $rc)"
native=false
command -v native-image >/dev/null && native=true

python3 - "$run" "$rc" "$native" <<'PY'
import sys
sys.path.insert(0, "scripts/lib")
from run_checks import Run

checked = Run(sys.argv[1], sys.argv[2])
run, status, plan, problems, rows = checked.dir, checked.status, checked.plan, checked.problems, checked.rows
native = sys.argv[3] == "true"

configs = {c["runtime"]: c for c in rows("configurations.csv")}
ran = set()
for rt in plan["runtimes"]:
    name, c = rt["name"], configs.get(rt["name"])
    if c is None:
        problems.append(f"runtime {name}: no configurations.csv row")
    elif c["status"] == "ran":
        ran.add(name)
        if not c["deployable_bytes"]:
            problems.append(f"runtime {name}: no deployable size")
    elif name.endswith("-native") and not native and "native-image" in c["reason"]:
        print(f"ci-2020: {name} skipped, as expected without native-image: {c['reason']}")
    else:
        problems.append(f"runtime {name} did not run ({c['status']}): {c['reason']}")

skipped = status.get("skipped_cells") or []
for s in skipped:
    if "JDK" not in s.get("reason", ""):
        problems.append(f"skipped cell {s.get('cell_id')} does not name its JDK: {s.get('reason')}")
print(f"ci-2020: {len(skipped)} cells skipped by the plan for their JDK")

measured = checked.cells_measured(ran)
java_cells = [c["id"] for c in plan["cells"]
              if c["runtime"] in ran and "java" in (configs[c["runtime"]]["tags"] or "")]
for name in ran:
    if not any(c["runtime"] == name for c in plan["cells"]):
        problems.append(f"runtime {name} has no cell left in the plan")

nmt = {r["cell_id"]: r for r in rows("nmt.csv")}
for cell in java_cells:
    r = nmt.get(cell)
    if r is None:
        problems.append(f"JVM cell {cell}: no nmt.csv row")
    elif r["status"] != "ok" or not r["committed_bytes"]:
        problems.append(f"JVM cell {cell}: NMT {r['status']}: {r['reason']}")

first = {r["runtime"] for r in rows("first-requests.csv")}
for name in sorted(ran - first):
    problems.append(f"runtime {name}: no first-requests.csv rows")

se, jlink = configs.get("helidon-se"), configs.get("helidon-se-jlink")
if se and jlink and se["status"] == jlink["status"] == "ran":
    full = int(se["deployable_bytes"]) + int(se["jdk_bytes"] or 0)
    if int(jlink["deployable_bytes"]) >= full:
        problems.append(f"the jlink deployable ({jlink['deployable_bytes']} B) is not smaller than jar + JDK ({full} B)")
    print(f"ci-2020: deployable helidon-se jar+libs+JDK {full / 1e6:.1f} MB, jlink image {int(jlink['deployable_bytes']) / 1e6:.1f} MB")

report = (run / "report.md").read_text(errors="replace")
for needle in ["Native Memory Tracking", "First requests", "Deployable"]:
    if needle.lower() not in report.lower():
        problems.append(f"report.md does not mention {needle!r}")

checked.finish("ci-2020", f"{len(ran)} runtimes ran, {len(measured)} cells measured by request count, "
               f"{len(java_cells)} JVM cells with NMT, first requests and deployable sizes for every runtime")
PY
