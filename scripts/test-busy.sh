#!/usr/bin/env bash
# The whole test suite (the README's test command, scripts/test-all.sh) with
# the host made busy on purpose: two CPU-bound processes of the same
# priority as the tests run beside it for its whole length, so every test
# shares the 2 CPUs of this host with two more runnable processes than it
# would on a quiet one. A test whose outcome depends on the host's speed
# fails here; the suite must pass, TIMES times in a row.
#   scripts/test-busy.sh [TIMES]      (default 3; prints each pass's seconds)
# The busy loops are this script's own children, ended by PID however the
# script ends.
set -euo pipefail
cd "$(dirname "$0")/.."
times=${1:-3}
hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null || true; done
  hogs=()
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM

for i in $(seq 1 "$times"); do
  for _ in 1 2; do
    sh -c 'while :; do :; done' &
    hogs+=("$!")
  done
  echo "== test-busy: pass $i of $times, busy loops ${hogs[*]} beside scripts/test-all.sh"
  start=$(date +%s)
  rc=0
  scripts/test-all.sh >"${TEST_BUSY_LOG:-/tmp/test-busy.$$.log}" 2>&1 || rc=$?
  stop_hogs
  if [ "$rc" -ne 0 ]; then
    tail -n 80 "${TEST_BUSY_LOG:-/tmp/test-busy.$$.log}"
    echo "test-busy: pass $i of $times FAILED (exit $rc) after $(($(date +%s) - start)) s; the whole output: ${TEST_BUSY_LOG:-/tmp/test-busy.$$.log}"
    exit 1
  fi
  echo "test-busy: pass $i of $times passed in $(($(date +%s) - start)) s"
done
echo "test-busy: $times passes in a row"
