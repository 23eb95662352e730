#!/usr/bin/env bash
# End to end for `runner compare` (issue 11), with real runs of one spec:
# two runs of an unchanged system must compare without a regression (exit 0,
# or 3 when the host was too noisy for the design to see the threshold), and
# a run in which one runtime is made
# ~40% slower by something the spec does not contain (the fixture service
# reads its per-request CPU cost from a file) must compare with exit 1,
# naming that runtime's configurations and no other's.
#   scripts/e2e-compare.sh            (needs target/release/runner; ~3 min)
# Service and load generator are pinned to different CPUs. A 20% throughput
# threshold is what 10 repeats of these tiny Python services can see on a
# 2-core host with margin (measured there: repeat noise 2-9%, detectable
# 9-14%; the slowed runtime loses ~29%). Their p99 at 2 connections varies
# 4-27% between repeats, which no affordable number of repeats can judge, so
# p99 is reported, not judged (`--latency-threshold off`). The comparison
# prints its design table. On a host too busy for the threshold it says
# "inconclusive" (exit 3): for the unchanged pair that is no false alarm, so it
# passes (the design table is printed, and a compare that could never see
# anything still fails below, where the slowed runtime must give exit 1). Seen
# once on this 2-core host while other builds ran: repeat noise 7-16%,
# detectable 21-23% against the 20% threshold.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runner=${RUNNER:-$root/target/release/runner}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cpus=$(nproc)
service_cpu=$((cpus > 1 ? 1 : 0))

echo 180 > "$work/cost-steady"
echo 180 > "$work/cost-changing"
cat > "$work/compare-e2e.yaml" <<EOF
experiment: { name: compare-e2e, title: compare end to end, description: two unchanged runs and one slowed runtime }
runtimes:
  steady:
    dir: $root/tests/fixtures/exec
    start: python3 service.py
    env: { COST_FILE: $work/cost-steady }
    health: { path: /health, timeout: 10s, interval: 20ms }
  changing:
    dir: $root/tests/fixtures/exec
    start: python3 service.py
    env: { COST_FILE: $work/cost-changing }
    health: { path: /health, timeout: 10s, interval: 20ms }
workload: { method: GET, path: "/work/{{ payload }}", expect: { status: 200 } }
axes: { payload: [16], concurrency: [2] }
load: { mode: closed, timeout: 2s }
repeats: 10
order: interleaved
lifecycle: { restart: repeat }
warmup: { service: 500ms, cell: 300ms }
measure: { duration: 1500ms }
affinity: { service: [$service_cpu], load: [0] }
results: $work/results
EOF

run() {
  "$runner" exec "$work/compare-e2e.yaml" >"$work/exec.log" 2>&1 || {
    cat "$work/exec.log" >&2
    echo "e2e-compare: runner exec failed" >&2
    exit 1
  }
  ls -d "$work"/results/compare-e2e/*/ | sort | tail -1
}

compare() { # A B expected-exit [another accepted exit]
  local rc=0
  "$runner" compare "$1" "$2" --threshold 20% --latency-threshold off >"$work/compare.md" || rc=$?
  sed -n '/^\*\*Verdict/p;/^## What this design/,/^## Configurations/p' "$work/compare.md"
  if [ "$rc" -ne "$3" ] && [ "$rc" -ne "${4:-$3}" ]; then
    cat "$work/compare.md" >&2
    echo "e2e-compare: compare exited $rc, expected $3${4:+ or $4}" >&2
    exit 1
  fi
}

# One attempt: runs 1 and 2 unchanged (no regression: exit 0 or 3), then run
# 3 with 'changing' slowed, which must be flagged, and nothing else. A shared
# VM can be so noisy in one run (run 1's repeats varied 69-75% once, 2026-12-01)
# or drift so much between runs minutes apart (steady's run-3 noise 34.5% once)
# that no comparison could judge it; then the attempt is made once more,
# saying why, before failing.
attempt() {
  echo 180 > "$work/cost-changing"
  echo "== run 1 and run 2 of an unchanged system"
  a=$(run)
  sleep 1 # run ids have a one-second resolution
  b=$(run)
  compare "$a" "$b" 0 3
  # 150% more CPU per request: a ~25% slowdown (290) was missed once on this
  # host when run 1's repeats of 'changing' varied 23%, so that the design could
  # only see 32% (2026-12-01); the change must stand clear of that noise for
  # the test to judge the rule rather than the host.
  echo "== run 3: 'changing' costs 150% more CPU per request (~40% less throughput)"
  echo 450 > "$work/cost-changing"
  sleep 1
  c=$(run)
  compare "$a" "$c" 1 3
  flagged=$(grep -E '\*\*(REGRESSION|FAILED in B)\*\*' "$work/compare.md" | grep -o '`[^`]*`' | tr -d '`' | sort -u)
  echo "flagged: $flagged"
  [ -n "$flagged" ] && ! echo "$flagged" | grep -qv '^changing/'
}
if ! attempt; then
  echo "e2e-compare: run 3 was not judged a regression of 'changing' alone (see the design table: host noise or drift?); one more attempt"
  if ! attempt; then
    echo "e2e-compare: expected only configurations of 'changing' to regress" >&2
    exit 1
  fi
fi
echo "e2e-compare: passed"
