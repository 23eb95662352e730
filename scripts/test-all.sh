#!/usr/bin/env bash
# The project's whole test suite: the runner (cargo test) and every service
# under test with its own ecosystem's runner. Used by .ci/run; run it locally
# the same way: scripts/test-all.sh (it installs, as root, or checks, as
# another user, what the tests need first: scripts/install-deps.sh)
#
# Three lanes run side by side once the runner's tests are compiled: the
# runner's test binaries in two (they mostly wait on the servers they
# start) and the services' suites (go, node, cargo, mvn). Each lane writes
# its own log, printed whole when the lane ends, so the output reads as if
# they had run one after the other.
# Nothing in any lane depends on the host being quiet: scripts/test-busy.sh
# runs this whole script with two busy loops beside it.
#   SERIAL=1 scripts/test-all.sh    # one lane after the other (to read a
#                                   # failure without the other lane's load)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/jdk25.sh

step() { printf '\n== %s\n' "$*"; }
# A lane's end, for its seconds (each lane runs in a subshell of its own,
# whose EXIT trap calls this however the lane ends).
lane_done() { if [ -n "${logs:-}" ]; then date +%s >"$logs/$1.end"; fi; }

# The services' suites, in the order they always ran. The Go packages are
# compiled -trimpath, as the specs' `go build -trimpath` builds them, so the
# dependencies compiled here are in Go's cache when CI's runs build them.
services() {
  trap 'lane_done services' EXIT
  step "runtimes/contract: the microservices vectors are what microservices.py writes"
  python3 runtimes/contract/microservices.py --check

  # The services' products and dashboard tests run on one throwaway PostgreSQL
  # and the three stubs (runtimes/contract/test-deps.sh), stopped by PID at exit
  # whatever the outcome; each suite reseeds the table itself. Without them
  # those tests say they were skipped.
  step "runtimes/contract: PostgreSQL and the three stubs for the services' tests"
  deps="$(mktemp -d)"
  trap 'runtimes/contract/test-deps.sh stop "$deps"; lane_done services' EXIT
  trap 'exit 143' INT TERM
  runtimes/contract/test-deps.sh start "$deps" >/dev/null
  . "$deps/env"
  export GOFLAGS=-trimpath

  step "runtimes/go-nethttp: go test"
  (cd runtimes/go-nethttp && go vet ./... && go test -count=1 ./...)

  step "runtimes/stub: go test"
  (cd runtimes/stub && go vet ./... && go test ./...)

  step "runtimes/go-kit: go test"
  (cd runtimes/go-kit && go vet ./... && go test ./...)

  step "runtimes/go-gin: go test"
  (cd runtimes/go-gin && go vet ./... && go test -count=1 ./...)

  step "runtimes/node-http: npm ci, node --test"
  # prom-client (METRICS=true) comes from npm: install it from the lock file first.
  (cd runtimes/node-http && npm ci --no-audit --no-fund --silent && npm test --silent)

  step "runtimes/java-helidon: mvn test (JDK 25)"
  (cd runtimes/java-helidon && mvn -B -q test)

  step "runtimes/helidon-mp: mvn test (JDK 25)"
  (cd runtimes/helidon-mp && mvn -B -q test)

  step "runtimes/spring-boot-vt: mvn test (JDK 25)"
  (cd runtimes/spring-boot-vt && mvn -B -q test)
}

# The runner's test binaries in two lanes of their own, since they mostly
# wait on the servers they start: the five longest (about half of the
# ~370 s they take one after another on this host, 2026-12-07) in one, every
# other target in the other, so a test file added later runs without being
# listed. SERIAL=1 runs them one lane after the other as well.
# The Rust service's suite runs in the long lane: its compile (about 130 s)
# is CPU the long tests' waiting leaves free, and the services' lane was the
# longest with it (473 s against 218 and 397, CI on a clean clone, 2026-12-07).
long_tests=(exec_cli load_freeze exec_search exec_nmt exec_dependencies)
runner_tests_long() {
  trap 'lane_done runner_tests_long' EXIT
  step "runner: cargo test, the longest test binaries: ${long_tests[*]}"
  cargo test --locked $(printf -- '--test %s ' "${long_tests[@]}")
  step "runtimes/rust-axum: cargo test"
  (cd runtimes/rust-axum && cargo test --locked)
}
runner_tests_rest() {
  trap 'lane_done runner_tests_rest' EXIT
  local rest=() file name
  for file in tests/*.rs; do
    name=$(basename "$file" .rs)
    [[ " ${long_tests[*]} " == *" $name "* ]] || rest+=(--test "$name")
  done
  step "runner: cargo test, the library, the binary and every other test binary"
  cargo test --locked --lib --bins "${rest[@]}"
  step "runner: cargo test --doc"
  cargo test --locked --doc
}

# What the tests need beyond the toolchains (PostgreSQL, the web servers,
# sshd): installed as root, checked otherwise; never skipped quietly.
step "scripts/install-deps.sh: what the tests need beyond the toolchains"
scripts/install-deps.sh

# Compiling is CPU-bound on both cores: done before the lanes start.
step "runner: cargo test --no-run (compile)"
cargo test --locked --no-run

lanes=(runner_tests_long runner_tests_rest services)
if [ -n "${SERIAL:-}" ]; then
  for lane in "${lanes[@]}"; do ("$lane"); done
else
  logs="$(mktemp -d)"
  start=$(date +%s)
  # Each lane in a process group of its own (set -m), so that a Ctrl-C or
  # a CI timeout ends every lane and everything it started, by group.
  pids=()
  set -m
  for lane in "${lanes[@]}"; do
    ("$lane") >"$logs/$lane" 2>&1 &
    pids+=($!)
  done
  set +m
  trap 'for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done; exit 130' INT TERM
  failed=()
  for i in "${!lanes[@]}"; do
    wait "${pids[i]}" || failed+=("${lanes[i]} (exit $?)")
  done
  lane_s() { if [ -s "$logs/$1.end" ]; then echo $(($(cat "$logs/$1.end") - start)); else echo "?"; fi; }
  for lane in "${lanes[@]}"; do
    cat "$logs/$lane"
    printf '\n== lane: %s ended after %s s\n' "$lane" "$(lane_s "$lane")"
  done
  rm -rf "$logs"
  if [ "${#failed[@]}" -gt 0 ]; then
    echo "test-all: lanes failed: ${failed[*]}; their output is above"
    exit 1
  fi
fi

echo
echo "all test suites passed"
