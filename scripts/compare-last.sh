#!/usr/bin/env bash
# For cron: judges the newest complete run of an experiment against the last
# stable regime of its history (`runner compare --baseline history`, see
# docs/compare.md). Exit 0 no regression, 1 regression, 2 not comparable or
# unusable input, 3 inconclusive (the design cannot see a threshold-sized
# change: more repeats, or a larger --threshold).
#   scripts/compare-last.sh EXPERIMENT [runner compare options, e.g. --threshold 5%]
set -euo pipefail
experiment=${1:?usage: scripts/compare-last.sh EXPERIMENT [compare options]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
runner=${RUNNER:-$root/target/release/runner}
dir=${RESULTS:-$root/results}/$experiment
complete=0
for run in "$dir"/*/; do
  if grep -Eq '"state": *"complete"' "$run/status.json" 2>/dev/null; then complete=$((complete + 1)); fi
done
if [ "$complete" -lt 2 ]; then
  echo "compare-last: fewer than two complete runs under $dir; nothing to compare yet" >&2
  exit 0
fi
echo "comparing the newest run of $dir with the last stable regime of its history"
exec "$runner" compare --baseline history "$dir" "$@"
