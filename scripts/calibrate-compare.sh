#!/usr/bin/env bash
# Calibration of `runner compare` (issue 11): draws run pairs from a
# hierarchical noise model (the reference run's own noise, and a quiet
# host's), judges them with the library's rule and prints the false-alarm
# rate per run, the inconclusive rate, the detectable change, the repeats
# needed and the power to find a 10% / 25% drop in one configuration.
#   scripts/calibrate-compare.sh [REFERENCE_RUN] [--pairs N] [--seed S]
# Defaults: results/2026/20261130T100516Z, 2000 pairs, a fixed seed (the
# figures are reproducible). Takes well under a minute after the build.
# PROFILE=debug runs the debug build instead (CI: `cargo test` has already
# built it, so the release build of the example and every dev-dependency,
# ~100 s, is saved for a run 6x slower, ~25 s for 400 pairs; the figures are
# the same, the draws being seeded).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${PROFILE:-release}" in
release)
  cargo build --release --locked --quiet --example calibrate-compare
  exec target/release/examples/calibrate-compare "$@"
  ;;
debug)
  cargo build --locked --quiet --example calibrate-compare
  exec target/debug/examples/calibrate-compare "$@"
  ;;
*)
  echo "calibrate-compare: PROFILE is release or debug, not '$PROFILE'" >&2
  exit 2
  ;;
esac
