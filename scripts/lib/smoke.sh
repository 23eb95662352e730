# Sourced by the smoke-run scripts (ci-2020.sh, ci-web-servers.sh,
# test-guides.sh): the one way they build the runner and make a run (and
# scripts/lib/run_checks.py the one way they check it). The
# caller defines `fail MESSAGE` and sets `runner` (the binary).

# Builds the release runner when `$runner` is missing.
smoke_build() {
  if [ ! -x "$runner" ]; then
    echo "== cargo build --release (no $runner yet)"
    cargo build --release --locked
  fi
}

# smoke_run SPEC [exec options...]: validates SPEC, runs `runner exec SPEC
# options`, and sets `run` (the new run directory: named by a run id, digits
# first; `runner verify` folders sort after them) and `rc` (runner's exit
# code). Fails when no new run directory appeared.
smoke_run() {
  local spec=$1 results before
  shift
  "$runner" validate "$spec"
  results=$("$runner" plan --format json "$spec" | python3 -c 'import json,sys; print(json.load(sys.stdin)["results_dir"])')
  before=$( (find "$results" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*' 2>/dev/null || true) | sort | tail -n 1)
  echo "== runner exec $spec $*"
  rc=0
  "$runner" exec "$spec" "$@" || rc=$?
  run=$( (find "$results" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*' 2>/dev/null || true) | sort | tail -n 1)
  [ -n "$run" ] && [ "$run" != "$before" ] || fail "no new run directory under $results (runner exited $rc)"
}
