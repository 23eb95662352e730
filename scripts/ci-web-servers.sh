#!/usr/bin/env bash
# The off-the-shelf web servers study (experiments/web-servers.yaml: Debian's
# nginx, lighttpd, h2o and caddy, none built here) end to end: runs
# `runner exec experiments/web-servers.yaml --quick --repeats 1`, then checks
# from the run directory:
#   - the run completed, every runtime ran and every planned cell was measured
#     (requests > 0, not failed; `suspect` is the gates' call on this host);
#   - each runtime's version is in environment.json, and its config file,
#     rendered for the run with its planned port, is in files/<runtime>/;
#   - every server ran directly (no shell held memory: lifecycle.csv's
#     shell_rss_bytes is empty) and was ready by TCP (its log's start line);
#   - the report shows the versions.
#
#   scripts/ci-web-servers.sh                                # about 1 min here
#   RUN=results/web-servers/<run-id> scripts/ci-web-servers.sh   # check a run already made
# RUNNER picks the binary (default target/release/runner, built when missing);
# scripts/install-web-servers.sh installs the servers.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
spec=${SPEC:-experiments/web-servers.yaml}
runner=${RUNNER:-$root/target/release/runner}

fail() { echo "ci-web-servers: $*" >&2; exit 1; }
. scripts/lib/smoke.sh
smoke_build

rc=0
if [ -n "${RUN:-}" ]; then
  run=$RUN
  [ -f "$run/status.json" ] || fail "$run is not a run directory"
else
  smoke_run "$spec" --quick --repeats 1
fi
echo "run directory: $run (runner exited $rc)"

python3 - "$run" "$rc" <<'PY'
import json, sys
sys.path.insert(0, "scripts/lib")
from run_checks import Run

checked = Run(sys.argv[1], sys.argv[2])
run, status, plan, problems, rows = checked.dir, checked.status, checked.plan, checked.problems, checked.rows
env = json.loads((run / "environment.json").read_text())

configs = {c["runtime"]: c for c in rows("configurations.csv")}
for rt in plan["runtimes"]:
    name, c = rt["name"], configs.get(rt["name"])
    if c is None or c["status"] != "ran":
        problems.append(f"runtime {name} did not run: {c and c['reason']}")
        continue
    version = (env.get("versions") or {}).get(f"runtime {name}", "")
    if not version or version.startswith("(the command failed"):
        problems.append(f"runtime {name}: no version recorded ({version!r})")
    for f in (rt.get("scratch") or {}).get("files", []):
        kept = run / "files" / name / f["name"]
        if not kept.exists():
            problems.append(f"runtime {name}: {kept} was not kept")
        elif str(rt["port"]) not in kept.read_text():
            problems.append(f"runtime {name}: {kept} does not name its port {rt['port']}")
    log = (run / "logs" / f"{name}.log").read_text(errors="replace")
    if " directly: " not in log:
        problems.append(f"runtime {name}: its log does not say it was started directly")
    print(f"ci-web-servers: {name}: {version}")

for r in rows("lifecycle.csv"):
    if r.get("shell_rss_bytes"):
        problems.append(f"{r['runtime']} start {r['start_index']}: a shell held {r['shell_rss_bytes']} bytes")

measured = checked.cells_measured()

report = (run / "report.md").read_text(errors="replace")
if "nginx version" not in report:
    problems.append("report.md does not show nginx's version")

checked.finish("ci-web-servers", f"{len(configs)} servers ran, {len(measured)} cells measured, versions, "
               "rendered configs and direct starts checked")
PY
