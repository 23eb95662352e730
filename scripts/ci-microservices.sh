#!/usr/bin/env bash
# The microservices study end to end on a clean machine (issue 14: "runner exec --quick runs every
# scenario and runtime, with PostgreSQL and the stubs started and stopped by runner, and nothing left
# listening"). Runs `runner exec SPEC --quick --repeats=1` (SPEC: experiments/2026-microservices.yaml),
# then checks from the run directory and the runner's own output:
#   - the run completed, and every scenario x runtime cell of plan.json was measured: it answered, and
#     it was not failed, or failed only by the error gate (a measurement of the host: on 2 shared
#     cores Spring's fan-out at saturation can miss its 1 s downstream deadline, the service and the
#     pipeline working as they should);
#     a runtime may instead be skipped only if it is listed in SKIP_OK (default: spring-boot-native,
#     which needs GraalVM's native-image) and its configurations.csv reason names why;
#   - every dependency of the plan (PostgreSQL, the three stubs) was started and stopped by runner
#     (its "dependency <name> started" and "stopped" lines), and was measured beside the cells of
#     the scenarios that need it only;
#   - nothing listens any more on a port the run used (the runtimes' and dependencies' ports in
#     plan.json), comparing `ss -ltnp` before and after: a socket on such a port that was not there
#     before the run is a leftover.
#
#   scripts/ci-microservices.sh                                   # the study (needs the three services)
#   SPEC=tests/fixtures/exec/microservices-fixture.yaml SKIP_OK=native-fixture scripts/ci-microservices.sh
#
# Run directories are the ones named by a run id (digits first): `runner verify` writes verify-* folders
# beside them, which sort after every run id.
# RUNNER picks the binary (default target/release/runner, built when missing); QUICK the --quick factor
# (default 10); REPEATS the --repeats cap (default 1: none of the checks needs a second repeat, and the
# study's own 3 tripled this script's time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/jdk25.sh
spec=${SPEC:-experiments/2026-microservices.yaml}
skip_ok=${SKIP_OK:-spring-boot-native}
quick=${QUICK:-10}
repeats=${REPEATS:-1}
runner=${RUNNER:-$root/target/release/runner}

fail() { echo "ci-microservices: $*" >&2; exit 1; }

if [ ! -x "$runner" ]; then
  echo "== cargo build --release (no $runner yet)"
  cargo build --release --locked
fi
command -v ss >/dev/null || fail "ss (iproute2) is needed to check what is left listening"

# The results folder of this spec's experiment, from the plan.
plan_json=$(mktemp)
logs=$(mktemp -d)
trap 'rm -rf "$plan_json" "$logs"' EXIT
"$runner" plan --format json "$spec" >"$plan_json"
results=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results_dir"])' "$plan_json")

ss -ltnpH >"$logs/listening-before"
before=$( (find "$results" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*' 2>/dev/null || true) | sort | tail -n 1)

echo "== runner exec $spec --quick=$quick --repeats=$repeats"
rc=0
"$runner" exec "$spec" --quick="$quick" --repeats="$repeats" >"$logs/exec.out" 2>&1 || rc=$?
cat "$logs/exec.out"
ss -ltnpH >"$logs/listening-after"
run=$(find "$results" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*' | sort | tail -n 1)
[ -n "$run" ] && [ "$run" != "$before" ] || fail "no new run directory under $results (runner exited $rc)"
echo "run directory: $run (runner exited $rc)"

python3 - "$run" "$logs" "$skip_ok" "$rc" <<'PY'
import csv, json, pathlib, re, sys

run, logs = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
skip_ok = {n for n in sys.argv[3].split(",") if n}
rc = int(sys.argv[4])
problems = []

def rows(name):
    path = run / name
    return list(csv.DictReader(open(path))) if path.exists() else []

status = json.loads((run / "status.json").read_text())
plan = json.loads((run / "plan.json").read_text())
if status["state"] != "complete":
    problems.append(f"the run is {status['state']}: {status.get('message') or ''}")
if rc not in (0, 1):  # 1: some cells suspect or failed (checked below); 2+: the run itself failed
    problems.append(f"runner exited {rc}")

configs = {c["runtime"]: c for c in rows("configurations.csv")}
measured = {r["cell_id"]: r for r in rows("measurements.csv")}
scenarios = [s["name"] for s in plan.get("scenarios", [])]
if not scenarios:
    problems.append("the plan has no scenarios")

# Every planned cell of a runtime that ran was measured, not failed; a skipped runtime is allowed
# only when listed, with its reason.
skipped = set()
for rt in plan["runtimes"]:
    name = rt["name"]
    c = configs.get(name)
    if c is None:
        problems.append(f"runtime {name}: no configurations.csv row")
    elif c["status"] != "ran":
        if name not in skip_ok:
            problems.append(f"runtime {name} did not run ({c['status']}): {c['reason']}")
        elif not c["reason"].strip():
            problems.append(f"runtime {name} was skipped without a reason")
        else:
            skipped.add(name)
            print(f"ci-microservices: {name} skipped, as allowed: {c['reason']}")
def show_log(runtime):
    """The last lines of a runtime's log, so that a failure in CI can be read from CI's output alone
    (the run directory does not outlive the CI machine)."""
    path = run / "logs" / f"{runtime}.log"
    if path.exists():
        tail = path.read_text(errors="replace").splitlines()[-40:]
        print(f"ci-microservices: the last {len(tail)} lines of {path}:", file=sys.stderr)
        for line in tail:
            print(f"  | {line[:300]}", file=sys.stderr)

seen = set()
for cell in plan["cells"]:
    if cell["runtime"] in skipped:
        continue
    row = measured.get(cell["id"])
    scenario = dict((k, v) for k, v in cell["axes"]).get("scenario")
    if row is None:
        problems.append(f"cell {cell['id']} was not measured")
    elif int(row["requests"]) + int(row["err_status"] or 0) == 0:
        # No answer at all: refused, timed out, reset. (An HTTP error status
        # is an answer: see the next case.)
        problems.append(f"cell {cell['id']} answered nothing: {row['reason']}")
        show_log(cell["runtime"])
    elif row["status"] == "failed" and (
        "requests failed" in row["reason"]
        or (int(row["requests"]) == 0 and row["errors"] == row["err_status"])
    ):
        # A measurement, not a pipeline fault: the service answered, and
        # more than the error gate's share of its answers were errors (Spring's
        # fan-out past its 1 s downstream deadline at saturation on this
        # 2-core host, seen once in CI): how fast the host is, which this
        # script does not judge. The same at 100%: every answer an error
        # status and none a success, which runner names "no successful
        # request" (seen 2026-12-07 on a clean clone: 113 answers, all 502
        # from Spring's downstream deadline; the run before it on the same
        # host had 182 answers at a mean 837 ms against that 1 s deadline).
        print(f"ci-microservices: note: cell {cell['id']} failed by its answers' errors: {row['reason'][:160]}")
        seen.add((cell["runtime"], scenario))
    elif row["status"] == "failed":
        problems.append(f"cell {cell['id']} failed: {row['reason']}")
        show_log(cell["runtime"])
    else:
        seen.add((cell["runtime"], scenario))
for rt in plan["runtimes"]:
    for s in scenarios:
        if rt["name"] not in skipped and (rt["name"], s) not in seen:
            problems.append(f"scenario {s} x runtime {rt['name']}: no measured cell")

# Every dependency started and stopped by runner, and measured only beside the cells that need it.
out = (logs / "exec.out").read_text(errors="replace")
needs = {s["name"]: s.get("needs") for s in plan.get("scenarios", [])}
usage = rows("dependency-usage.csv")
for dep in plan.get("dependencies", []):
    name = dep["name"]
    users = [s for s, n in needs.items() if n is None or name in n]
    for step in ("started", "stopped"):
        if not re.search(rf"dependency {re.escape(name)} {step}\b", out):
            problems.append(f"dependency {name}: no '{step}' line in runner's output")
    beside = {u["cell_id"].split("/")[1].removeprefix("scenario=") for u in usage if u["dependency"] == name}
    if users and not beside:
        problems.append(f"dependency {name} was never measured beside a cell (scenarios {users} need it)")
    if beside - set(users):
        problems.append(f"dependency {name} was measured beside scenarios that do not need it: {sorted(beside - set(users))}")

# Nothing new listening on the run's ports.
ports = {rt["port"] for rt in plan["runtimes"]} | {d["port"] for d in plan.get("dependencies", [])}
def listening(path):
    found = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        port = fields[3].rsplit(":", 1)[-1]
        if port.isdigit():
            found.setdefault(int(port), []).append(line)
    return found
before, after = listening(logs / "listening-before"), listening(logs / "listening-after")
for port in sorted(ports):
    if port in after and port not in before:
        problems.append(f"port {port} is still listening after the run: {after[port]}")

for f in ["report.md", "report.html"]:
    if not (run / f).is_file():
        problems.append(f"{f} missing")
if "## Scenarios" not in (run / "report.md").read_text(errors="replace"):
    problems.append("report.md has no Scenarios section")

if problems:
    for p in problems:
        print(f"ci-microservices: {p}", file=sys.stderr)
    sys.exit(f"ci-microservices: {len(problems)} problem(s) in {run}")
ran = len(plan["runtimes"]) - len(skipped)
print(f"ci-microservices: {len(scenarios)} scenarios x {ran} runtimes measured "
      f"({len(measured)} cells), {len(plan.get('dependencies', []))} dependencies started and stopped, "
      f"nothing left listening on {len(ports)} ports")
PY
