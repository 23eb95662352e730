#!/usr/bin/env bash
# Runs the README's commands as written (scripts/readme-commands.sh reads
# them out of README.md), from the root of this checkout, and checks what
# each section promises:
#   scripts/test-readme.sh "Set up and run"   # the quickstart: a finished run
#                                             # whose cells are ok (or suspect
#                                             # with a reason), and its report
#   scripts/test-readme.sh Tests              # the whole test suite
# .ci/run calls both on its clean clone, so the README cannot drift from
# what works on a fresh machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
section=${1:?usage: test-readme.sh SECTION}
commands=$(scripts/readme-commands.sh "$section")
started=$(date -u +%Y%m%dT%H%M%SZ)
while IFS= read -r command; do
  echo "test-readme: \$ $command"
  bash -euo pipefail -c "$command"
done <<<"$commands"

# What "Set up and run" promises: the quickstart's newest run, started by
# the commands above, complete, every cell ok or suspect with its reason,
# and its report.
if [ "$section" = "Set up and run" ]; then
  experiment=$(sed -n 's/^  name: *//p' experiments/quickstart.yaml | head -1)
  run=$(ls -d "results/$experiment"/*/ 2>/dev/null | sort | tail -1)
  run=${run%/}
  [ -n "$run" ] && [[ "$(basename "$run")" > "$started" || "$(basename "$run")" == "$started" ]] ||
    { echo "test-readme: no run of $experiment started by the README's command under results/$experiment" >&2; exit 1; }
  python3 - "$run" <<'PY'
import csv, json, pathlib, sys
run = pathlib.Path(sys.argv[1])
state = json.loads((run / "status.json").read_text())["state"]
assert state == "complete", f"{run}/status.json: state {state}, not complete"
rows = list(csv.DictReader((run / "measurements.csv").open()))
assert rows, f"{run}/measurements.csv: no cell was measured"
bad = [r["cell_id"] for r in rows
       if r["status"] not in ("ok", "suspect") or (r["status"] == "suspect" and not r["reason"])]
assert not bad, f"{run}/measurements.csv: cells neither ok nor suspect with a reason: {bad}"
for report in ("report.md", "report.html"):
    assert (run / report).stat().st_size > 0, f"{run}/{report} is empty"
suspect = sum(r["status"] == "suspect" for r in rows)
print(f"test-readme: {run}: {len(rows)} cells ({suspect} suspect, each with a reason), report.md and report.html")
PY
fi
