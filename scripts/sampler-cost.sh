#!/usr/bin/env bash
# The sampler's CPU cost (issue 12: it must stay under 1% of a core): the
# sampling thread's own CPU time at its interval, on a multi-process service
# in its own cgroup, sampled as in a cell (process tree, cgroup files, PSS
# and fds once a second). Prints one line per service.
#   scripts/sampler-cost.sh [--interval 200ms] [--seconds 10]
# PROFILE=debug measures the debug build instead of the release one (an
# upper bound: the debug build is slower). Needs root for the cgroup files
# (without, it measures the process-tree part only and says mode none).
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${PROFILE:-release}"
if [ "$profile" = release ]; then
  cargo build --release --locked --quiet --example sampler-cost
else
  cargo build --locked --quiet --example sampler-cost
fi
bin="target/$profile/examples/sampler-cost"
"$bin" "$@"
if command -v node >/dev/null; then
  "$bin" --workers 4 "$@"
fi
