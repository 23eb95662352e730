#!/usr/bin/env bash
# Compares the newest complete run of an experiment with the complete run
# before it (for cron: exit 1 = significant regression, 2 = not comparable).
#   scripts/compare-last.sh EXPERIMENT [runner compare options, e.g. --threshold 5%]
set -euo pipefail
experiment=${1:?usage: scripts/compare-last.sh EXPERIMENT [compare options]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
runner=${RUNNER:-$root/target/release/runner}
dir=${RESULTS:-$root/results}/$experiment
runs=()
for run in $(find "$dir" -mindepth 1 -maxdepth 1 -type d | sort); do
  if grep -Eq '"state": *"complete"' "$run/status.json" 2>/dev/null; then runs+=("$run"); fi
done
if [ "${#runs[@]}" -lt 2 ]; then
  echo "compare-last: fewer than two complete runs under $dir; nothing to compare yet" >&2
  exit 0
fi
echo "comparing ${runs[-2]} (baseline) with ${runs[-1]}"
exec "$runner" compare "${runs[-2]}" "${runs[-1]}" "$@"
