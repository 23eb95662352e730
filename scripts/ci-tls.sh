#!/usr/bin/env bash
# The TLS study (experiments/2026-tls.yaml: Go, Helidon on the JVM and with a
# Leyden cache trained over HTTPS, Rust and Node over http1, https and h2,
# and https with a full handshake per request) end to end: runs
# `runner exec experiments/2026-tls.yaml --quick --repeats 1`, then checks
# from the run directory:
#   - the run completed, every runtime ran and every planned cell was measured;
#   - every TLS cell negotiated TLS (tls_version), every h2 cell chose h2 in
#     ALPN, every handshake cell made full handshakes and none resumed;
#   - the run kept its CA (tls/ca.pem) and no private key anywhere, and no
#     scratch folder (where the key was) is left in the temp dir;
#   - the report has its Protocols section;
#   - `runner verify --only protocol=h2` and `--only protocol=https` find
#     the four services equivalent over HTTP/2 and HTTPS/1.1, each started
#     with verify's own certificate.
#
#   scripts/ci-tls.sh                                 # about 6 min here
#   RUN=results/2026-tls/<run-id> scripts/ci-tls.sh   # check a run already made
# RUNNER picks the binary (default target/release/runner, built when missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/jdk25.sh
spec=${SPEC:-experiments/2026-tls.yaml}
runner=${RUNNER:-$root/target/release/runner}

fail() { echo "ci-tls: $*" >&2; exit 1; }
. scripts/lib/smoke.sh
smoke_build

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
if [ -n "${RUN:-}" ]; then
  run=$RUN
  [ -f "$run/status.json" ] || fail "$run is not a run directory"
else
  TMPDIR=$tmp smoke_run "$spec" --quick --repeats 1
fi
echo "run directory: $run (runner exited $rc)"
left=$(find "$tmp" -mindepth 1 -maxdepth 1 -name 'runner-*' | head -5)
[ -z "$left" ] || fail "scratch folders left in the temp dir: $left"

python3 - "$run" "$rc" <<'PY'
import sys
sys.path.insert(0, "scripts/lib")
from run_checks import Run

checked = Run(sys.argv[1], sys.argv[2])
run, plan, problems, rows = checked.dir, checked.plan, checked.problems, checked.rows

configs = {c["runtime"]: c for c in rows("configurations.csv")}
for rt in plan["runtimes"]:
    c = configs.get(rt["name"])
    if c is None or c["status"] != "ran":
        problems.append(f"runtime {rt['name']} did not run: {c and c['reason']}")

measured = checked.cells_measured()
for m in rows("measurements.csv"):
    cell, protocol = m["cell_id"], m["protocol"]
    if protocol in ("https", "h2") and not m["tls_version"].startswith("TLS 1."):
        problems.append(f"{cell}: no TLS negotiated ({m['tls_version']!r})")
    if protocol == "h2" and m["alpn"] != "h2":
        problems.append(f"{cell}: ALPN chose {m['alpn']!r}, not h2")
    if "scenario=handshakes" in cell:
        if m["handshakes_resumed"] != "0" or int(m["handshakes_full"] or 0) < 10:
            problems.append(f"{cell}: handshakes full {m['handshakes_full']}, resumed {m['handshakes_resumed']}")

if not (run / "tls" / "ca.pem").read_text().startswith("-----BEGIN CERTIFICATE-----"):
    problems.append("tls/ca.pem is not the run's CA certificate")
for path in run.rglob("*"):
    if path.is_file() and b"PRIVATE KEY" in path.read_bytes():
        problems.append(f"a private key in the run directory: {path}")

if "## Protocols" not in (run / "report.md").read_text(errors="replace"):
    problems.append("report.md has no Protocols section")

checked.finish("ci-tls", f"{len(configs)} runtimes ran, {len(measured)} cells measured over "
               "http1, https and h2; negotiation, handshakes, CA kept and no key left checked")
PY

for protocol in h2 https; do
  echo "== runner verify $spec --only protocol=$protocol"
  TMPDIR=$tmp "$runner" verify "$spec" --only "protocol=$protocol" \
    || fail "runner verify over $protocol found differences (exit $?)"
done
left=$(find "$tmp" -mindepth 1 -maxdepth 1 -name 'runner-*' | head -5)
[ -z "$left" ] || fail "scratch folders left in the temp dir after verify: $left"
echo "ci-tls: runner verify found the services equivalent over h2 and https"
