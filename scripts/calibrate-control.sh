#!/usr/bin/env bash
# Calibration of the control verdict (runner nightly with `controls:`,
# runner compare --baseline control): a candidate against its control in
# one run, on nights drawn by a generator of its own (host shifts, drift
# within the night, slow repeats, slow spells, unequal noise, heavy tails,
# all at once; examples/calibrate-control.rs says how each is drawn).
# Prints per shape and structure the false-page rate of an unchanged
# candidate with its 95% interval, the share that cannot tell, and the
# power to page a 10% / 20% loss in one configuration the same night.
#   scripts/calibrate-control.sh [--nights N] [--power-nights N] [--seed S]
# Defaults: 2000 nights, 500 for each power figure, a seed drawn afresh and
# printed. docs/compare.md's figures: --seed 20261208. About 2 minutes in a
# release build on this 2-CPU host; PROFILE=debug runs the debug build.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/example.sh
run_example calibrate-control "$@"
