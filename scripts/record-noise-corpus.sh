#!/usr/bin/env bash
# Records the corpus of experiments/noise-corpus.yaml: RUNS runs of one
# unchanged spec, one every INTERVAL minutes (a run that overruns its slot
# is followed at once), so the corpus spreads over hours and takes the
# host as it comes. Bounded: RUNS runs, then it stops.
#   scripts/record-noise-corpus.sh [RUNS=12] [INTERVAL=9]
# The runner binary is copied first, so a rebuild meanwhile cannot change
# what measures; the runs land in results/noise-corpus/ (commit them whole).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-12}
interval=${2:-9}
runner=$(mktemp)
trap 'rm -f "$runner"' EXIT
cp "${RUNNER:-$root/target/release/runner}" "$runner"
chmod +x "$runner"
for i in $(seq 1 "$runs"); do
  slot_end=$(( $(date +%s) + interval * 60 ))
  echo "record-noise-corpus: run $i of $runs at $(date -u +%H:%M:%SZ)"
  "$runner" exec "$root/experiments/noise-corpus.yaml" 2>&1 | tail -2 ||
    echo "record-noise-corpus: run $i failed (kept in results/noise-corpus as it is)"
  if [ "$i" -lt "$runs" ]; then
    wait_s=$(( slot_end - $(date +%s) ))
    [ "$wait_s" -le 0 ] || sleep "$wait_s"
  fi
done
echo "record-noise-corpus: $runs runs recorded in $root/results/noise-corpus"
