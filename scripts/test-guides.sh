#!/usr/bin/env bash
# Runs the specs the guides and the README show (docs/guides/*.md), each
# with --quick, and checks what the guide promises of its run:
#   - experiments/examples/nginx.yaml (README, guides/off-the-shelf-server.md):
#     complete, every cell measured, nginx's version and rendered config kept;
#   - experiments/examples/go-service.yaml (README): complete, every cell measured;
#   - docs/guides/specs/two-versions.yaml (guides/two-versions.md), in a
#     throwaway git repository whose v1 pauses 2 ms per request and v2 does
#     not: complete, both revisions ran, the report compares them.
# The other two guides are run elsewhere in CI: nightly regression checks by
# scripts/e2e-compare.sh, load from another machine by scripts/test-hosts.sh.
# Every spec block of README.md and docs/ is validated by tests/docs_specs.rs.
#
#   scripts/test-guides.sh      # about 2 min here
# RUNNER picks the binary (default target/release/runner, built when missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runner=${RUNNER:-$root/target/release/runner}
fail() { echo "test-guides: $*" >&2; exit 1; }
. scripts/lib/smoke.sh
smoke_build

# Runs spec $1 with options $2...; sets `run`; fails unless runner exited 0
# or 1 (1: some cells suspect, their gates' call on this host).
run_spec() {
  smoke_run "$@"
  [ "$rc" -le 1 ] || fail "runner exec $1 exited $rc"
}

# The newest run ($run, $rc) complete, every planned cell measured
# (requests > 0, not failed).
check_run() {
  python3 - "$run" "$rc" <<'PY'
import sys
sys.path.insert(0, "scripts/lib")
from run_checks import Run
checked = Run(sys.argv[1], sys.argv[2])
measured = checked.cells_measured()
checked.finish("test-guides", f"{checked.dir.name}: {len(measured)} cells measured")
PY
}

run_spec experiments/examples/nginx.yaml --quick --repeats 1
check_run
grep -q "nginx version" "$run/environment.json" || fail "$run: nginx's version not recorded"
ls "$run"/files/nginx/nginx.conf >/dev/null || fail "$run: the rendered nginx.conf was not kept"

run_spec experiments/examples/go-service.yaml --quick --repeats 1
check_run

repo=$(mktemp -d)
trap 'rm -rf "$repo"' EXIT
(
  cd "$repo"
  git init -q .
  git config user.email guide@example.com
  git config user.name guide
  write_server() {
    cat > server.py <<PY
import http.server, os, time
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Head and body go out in two writes: without this, Nagle's algorithm
    # and the client's delayed ACK hold every answer ~40 ms.
    disable_nagle_algorithm = True
    def do_GET(self):
        if self.path == "/hello":
            time.sleep($1)
        body = b"hello\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), H).serve_forever()
PY
  }
  write_server 0.002 && git add server.py && git commit -qm v1 && git tag v1
  write_server 0 && git commit -qam v2 && git tag v2
  printf 'build/\nresults/\n' > .gitignore
)
cp docs/guides/specs/two-versions.yaml "$repo/spec.yaml"
run_spec "$repo/spec.yaml" --quick
check_run
grep -Eq "after\*\* vs before|before\*\* vs after" "$run/report.md" ||
  fail "$run/report.md does not compare after with before"
grep -q "latency floor" "$run/measurements.csv" && fail "$run: the guide's service hit the Nagle floor"
echo "test-guides: the README's and the guides' specs ran"
