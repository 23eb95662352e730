#!/usr/bin/env bash
# Calibration of `runner compare` and `runner history` (issue 27) on noise
# the rule does not assume: configuration-dependent noise, outlier repeats,
# heavy-tailed p99, run offsets, host shifts, drift, and a bootstrap of the
# committed runs' residuals (src/report/compare/simulate.rs). Prints, per
# structure, the false-alarm rate per run (with its 95% interval), the share
# of exit 3 and the power to find a 10% / 20% loss in one configuration,
# judged as `compare A B` (two floors) and `compare --baseline history`;
# then history's rates on flat, stepped and drifting series.
# Then runner nightly's page (a regression confirmed by the night before)
# on the same structures and two more (noise of its own each night, slow
# nights), and on the real corpus replayed (results/noise-corpus).
#   scripts/calibrate-compare.sh [--pairs N] [--power-pairs N] [--nights N] [--seed S]
#                                [--only NAME] [--sections compare,nightly,corpus,history] [RUN_DIR...]
# Defaults: 2000 pairs, 500 for each power figure, 500 nights, a seed drawn
# afresh and printed (replay it with --seed), every run under results/ for
# the bootstrap. About 15 minutes in a release build on this 2-CPU host.
# PROFILE=debug runs the debug build instead (CI: `cargo test` has already
# built it; use small counts there, e.g. --pairs 20 --power-pairs 5 --nights 10).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/example.sh
run_example calibrate-compare "$@"
