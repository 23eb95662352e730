#!/usr/bin/env bash
# The load generator's timing figures on this host (not a gate): what the
# tests in tests/load_library.rs and tests/load_freeze.rs used to assert as
# thresholds (rate delivered within 1%, timer lag under 600 us, a ramp's 500
# sends, a freeze's tail within 10% of the truth, prompt ends) depends on the
# host's speed, so the tests assert what holds on any host and this prints
# the figures: min, median and max over RUNS runs, scenarios interleaved.
#   scripts/bench-timing.sh [--runs N]      (release build; ~45 s a run)
# CPUS pins the whole process (generator and test servers), e.g. CPUS=0,1.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet --example load-timing
bin=target/release/examples/load-timing
if [ -n "${CPUS:-}" ]; then
  exec taskset -c "$CPUS" "$bin" "$@"
fi
exec "$bin" "$@"
