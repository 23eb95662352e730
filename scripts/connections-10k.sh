#!/usr/bin/env bash
# 10,000 connections (issue 13 part 6): `runner load` opens them paced at
# its connect rate, holds them for HOLD seconds against a local server
# (runtimes/go-nethttp, 127.0.0.1 only, pinned to CPU 1, the generator to
# CPU 0) with a gentle open-loop rate on top, and this prints: the host's
# limits (ulimit -Hn, net.core.somaxconn), the connect pacing achieved, the
# generator's RSS and RSS per connection, the server's idle RSS, its largest
# RSS while the connections were held and its memory per connection.
# Figures only, nothing asserted.
#   scripts/connections-10k.sh              # COUNTS="1000 10000" HOLD=10 RATE=1000 CONNECT_RATE=2000
# PROFILE=debug uses the debug runner.
set -euo pipefail
cd "$(dirname "$0")/.."
counts="${COUNTS:-1000 10000}"; hold="${HOLD:-10}"; rate="${RATE:-1000}"; connect_rate="${CONNECT_RATE:-2000}"
profile="${PROFILE:-release}"
if [ "$profile" = release ]; then cargo build --release --locked --quiet; else cargo build --locked --quiet; fi
runner="$PWD/target/$profile/runner"
tmp=$(mktemp -d); pid=""; sampler=""
cleanup() { for p in $sampler $pid; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
(cd runtimes/go-nethttp && go build -trimpath -o "$tmp/server" ./cmd/server)
port=$((20000 + RANDOM % 10000))
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

echo "== host: ulimit -Sn $(ulimit -Sn), ulimit -Hn $(ulimit -Hn), net.core.somaxconn $(cat /proc/sys/net/core/somaxconn), $(nproc) CPUs"
for n in $counts; do
  # The server inherits this shell's limits; Go raises its soft NOFILE to
  # the hard limit itself (runner exec does so for every service it starts).
  PORT=$port taskset -c 1 "$tmp/server" >"$tmp/server.log" 2>&1 & pid=$!
  for _ in $(seq 200); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.05; done
  curl -sf "http://127.0.0.1:$port/api/generated/7" >/dev/null
  sleep 0.5
  idle=$(rss_kib "$pid")
  # The server's RSS every 200 ms while the load runs, and its
  # established connections once they should all be open.
  (max=0; while kill -0 "$pid" 2>/dev/null; do r=$(rss_kib "$pid" 2>/dev/null || echo 0); [ "${r:-0}" -gt "$max" ] && max=$r && echo "$max" >"$tmp/max"; sleep 0.2; done) & sampler=$!
  (sleep "$(awk -v n="$n" -v r="$connect_rate" -v h="$hold" 'BEGIN { print n / r + h / 2 }')"
   ss -Htn state established "( sport = :$port )" | wc -l >"$tmp/established") & counter=$!
  "$runner" load "http://127.0.0.1:$port/api/generated/7" --cpus 0 -c "$n" --rate "$rate" \
    --connect-rate "$connect_rate" -d "${hold}s" --timeout 10s --json >"$tmp/load.json"
  wait "$counter" 2>/dev/null || true
  kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true; sampler=""
  max=$(cat "$tmp/max")
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  echo "== $n connections held ${hold}s (open loop $rate req/s, connect rate $connect_rate/s)"
  jq -r --arg est "$(cat "$tmp/established")" '
    "  connect     \(.connect.opened) of \(.connect.wanted) opened (\(.connect.failed) failed) in \(.connect.seconds*100|round/100) s: \(.connect_rate_achieved|round)/s; server saw \($est) established mid-window",
    "  requests    \(.requests) ok, \(.errors_total) errors, p50 \(.latency_us.p50/10|round/100) ms, p99 \(.latency_us.p99/10|round/100) ms",
    "  generator   RSS \(.generator_memory.rss_bytes/1048576*10|round/10) MiB with the connections open (\(.generator_memory.rss_before_bytes/1048576*10|round/10) MiB before): \((.generator_memory.rss_bytes-.generator_memory.rss_before_bytes)/.connect.opened/1024*100|round/100) KiB per connection; peak \(.generator_memory.peak_rss_bytes/1048576*10|round/10) MiB"' "$tmp/load.json"
  awk -v idle="$idle" -v max="$max" -v n="$n" 'BEGIN { printf "  server      idle RSS %.1f MiB, largest while held %.1f MiB: %.2f KiB per connection\n", idle/1024, max/1024, (max-idle)/n }'
done
