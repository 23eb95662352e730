#!/usr/bin/env bash
# One check across every service (issue 15): with LOG_REQUESTS=true each
# service writes exactly one log line per request, and with METRICS=true its
# /metrics request count grows by exactly the requests sent. Called by
# .ci/run after the end-to-end steps.
#
# For each service under runtimes/ (go-nethttp, go-kit, java-helidon,
# helidon-mp, rust-axum, node-http single and cluster) it runs the build
# command of experiments/contract.yaml, starts the service on 127.0.0.1
# with LOG_REQUESTS=true METRICS=true, waits for /health, reads /metrics,
# sends exactly N requests with `runner load -n N` (closed loop, keep-alive,
# bounded by the count and a per-request timeout), reads /metrics again,
# then counts the log lines naming the request's path. It fails naming the
# service when either count differs from N.
#
# Why a script and not a spec through `runner exec`: exec polls /health
# (counted and logged by the services), times a first request of every
# fresh start, and stops the service after its window, so /metrics could
# not be read after the load; here the service stays up between the two
# /metrics reads and the requests to the checked path are exactly the N the
# generator sent.
#
# usage: scripts/check-log-metrics.sh [--no-build] [-n N] [SERVICE...]
#   SERVICE: go-nethttp go-kit java-helidon helidon-mp rust-axum node-http
#            node-cluster (default: all)
# RUNNER: the runner binary (default target/release/runner, else target/debug/runner).
#
# Ends only what it started: each service runs in its own session (setsid),
# stopped by its PID's process group, SIGTERM then SIGKILL.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/jdk25.sh

requests=500
build=1
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    -n) requests=$2; shift ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) only+=("$1") ;;
  esac
  shift
done
runner=${RUNNER:-}
if [ -z "$runner" ]; then
  runner=$root/target/release/runner
  [ -x "$runner" ] || runner=$root/target/debug/runner
fi
[ -x "$runner" ] || { echo "check-log-metrics: no runner binary at $runner: cargo build first, or set RUNNER" >&2; exit 2; }

# The one request sent N times: a path no health check or startup line names.
path=/api/generated/4242
java="$JAVA_HOME/bin/java -XX:ActiveProcessorCount=2 -XX:MaxRAMPercentage=75"

# name | dir | build command | start command | extra env
services=(
  "go-nethttp|runtimes/go-nethttp|go build -trimpath -o build/server ./cmd/server|./build/server|GOMEMLIMIT=off"
  "go-kit|runtimes/go-kit|go build -trimpath -o build/server ./cmd/server|./build/server|GOMEMLIMIT=off"
  "java-helidon|runtimes/java-helidon|mvn -B -q -DskipTests package|$java -jar target/service.jar|"
  "helidon-mp|runtimes/helidon-mp|mvn -B -q -DskipTests package|$java -jar target/service.jar|HOST=127.0.0.1"
  "rust-axum|runtimes/rust-axum|cargo build --release --locked|./target/release/rust-axum-service|TOKIO_WORKERS=2"
  "node-http|runtimes/node-http|npm run build|node server.js|NODE_WORKERS=1"
  "node-cluster|runtimes/node-http|npm run build|node server.js|NODE_WORKERS=2"
)

work=$(mktemp -d)
pid=""
stop_service() {
  [ -n "$pid" ] || return 0
  kill -TERM -- "-$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 -- "-$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=""
}
trap 'stop_service; rm -rf "$work"' EXIT

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Sum of the request counters on a /metrics page: http_requests_total (Go,
# Rust, Node) or requests_total (Helidon SE and MP), over every label set.
metrics_count() {
  curl -sS --max-time 10 "http://127.0.0.1:$1/metrics" | tee -a "$work/metrics.txt" |
    awk '/^(http_)?requests_total(\{.*\})? / { sum += $NF } END { printf "%d\n", sum }'
}

# The count once it has settled: a service may count an answer a moment
# after sending it (Helidon), so it is read until two reads 0.3 s apart agree
# (at most 5 s).
settled_count() {
  local last now
  last=$(metrics_count "$1") || return 1
  for _ in $(seq 1 16); do
    sleep 0.3
    now=$(metrics_count "$1") || return 1
    [ "$now" = "$last" ] && break
    last=$now
  done
  echo "$last"
}

# Log lines naming the checked path (one per request; health lines do not).
log_count() { grep -cE "${path}([^0-9]|\$)" "$1" || true; }

failures=()
checked=0
for entry in "${services[@]}"; do
  IFS='|' read -r name dir build_cmd start_cmd extra <<<"$entry"
  if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$name"; then continue; fi
  echo "== $name"
  if [ "$build" = 1 ]; then
    (cd "$dir" && eval "$build_cmd") >"$work/$name.build.log" 2>&1 ||
      { tail -n 30 "$work/$name.build.log" >&2; failures+=("$name: build failed ($build_cmd)"); continue; }
  fi
  port=$(free_port)
  log=$work/$name.log
  # shellcheck disable=SC2086 # extra is a list of NAME=value words
  (cd "$dir" && exec env PORT="$port" LOG_REQUESTS=true METRICS=true WORK_FACTOR=1 $extra \
    setsid sh -c "exec $start_cmd") >"$log" 2>&1 &
  pid=$!
  healthy=0
  for _ in $(seq 1 900); do
    if curl -fsS --max-time 2 "http://127.0.0.1:$port/health" >/dev/null 2>&1; then healthy=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ "$healthy" != 1 ]; then
    tail -n 30 "$log" >&2
    failures+=("$name: not healthy on port $port within 90 s")
    stop_service
    continue
  fi
  before=$(settled_count "$port") || { failures+=("$name: GET /metrics failed"); stop_service; continue; }
  "$runner" load "http://127.0.0.1:$port$path" -n "$requests" -c 4 --timeout 10s --json >"$work/$name.load.json"
  sent=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["requests"] + r["errors_total"])' "$work/$name.load.json")
  [ "$sent" = "$requests" ] || failures+=("$name: runner load got $sent answers of $requests")
  after=$(settled_count "$port") || { failures+=("$name: GET /metrics failed after the load"); stop_service; continue; }
  # A logger may write a moment after the answer: wait up to 5 s for the lines.
  lines=$(log_count "$log")
  for _ in $(seq 1 50); do
    [ "$lines" -ge "$requests" ] && break
    sleep 0.1
    lines=$(log_count "$log")
  done
  stop_service
  lines=$(log_count "$log")
  counted=$((after - before))
  echo "$name: sent $requests, /metrics counted $counted (before $before, after $after), log lines $lines"
  [ "$counted" = "$requests" ] || failures+=("$name: /metrics counted $counted requests, $requests were sent")
  [ "$lines" = "$requests" ] || failures+=("$name: $lines log lines for $requests requests (LOG_REQUESTS=true: one each)")
  checked=$((checked + 1))
done

if [ ${#failures[@]} -gt 0 ]; then
  printf 'check-log-metrics: %s\n' "${failures[@]}" >&2
  exit 1
fi
[ "$checked" -gt 0 ] || { echo "check-log-metrics: no service checked (names: go-nethttp go-kit java-helidon helidon-mp rust-axum node-http node-cluster)" >&2; exit 2; }
echo "check-log-metrics: $checked services, each one log line and one count per request"
