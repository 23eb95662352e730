#!/usr/bin/env bash
# What the downstream stub (runtimes/stub) costs and whether it keeps its
# declared delays. Prints figures, asserts nothing:
#  1. the stub at delay 0 against a minimal Go net/http hello
#     (runtimes/stub/hello) on the same pinned CPU: throughput ratio and p99,
#     median of ROUNDS alternating rounds;
#  2. the delays runner measures and the stub's own /__stats against the
#     declared distribution (uniform 5-20 ms and lognormal(10ms,0.5)).
#   scripts/stub-overhead.sh                    # ROUNDS=3 SECONDS=5 CONNECTIONS=32
# Service on CPU 1, generator on CPU 0 (a 2-core host); 127.0.0.1 only;
# every load bounded by -d. PROFILE=debug uses the debug runner (slower
# generator: the ratio is then bounded by it).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-3}"; seconds="${SECONDS_PER_RUN:-5}"; conns="${CONNECTIONS:-32}"
profile="${PROFILE:-release}"
if [ "$profile" = release ]; then cargo build --release --locked --quiet; else cargo build --locked --quiet; fi
runner="$PWD/target/$profile/runner"
tmp=$(mktemp -d); pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
(cd runtimes/stub && go build -trimpath -o "$tmp/stub" . && go build -trimpath -o "$tmp/hello" ./hello)
body="$PWD/runtimes/stub/fixtures/user.json"
port=$((20000 + RANDOM % 10000))

wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0; sleep 0.05; done; echo "no server on $port" >&2; exit 1; }
start() { taskset -c 1 "$@" >"$tmp/server.log" 2>&1 & pid=$!; wait_port; }
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }
load() { "$runner" load "http://127.0.0.1:$port$1" --cpus 0 -c "$conns" -d "${seconds}s" --json "${@:2}"; }

echo "== 1. stub at delay 0 vs Go net/http hello (service pinned to CPU 1, generator to CPU 0, $conns connections, ${seconds}s x $rounds rounds)"
: >"$tmp/rounds"
for r in $(seq "$rounds"); do
  start "$tmp/hello" "$port" "$body"
  load / >"$tmp/hello.json"; stop
  start "$tmp/stub" --port "$port" --route "bench=/:fixed(0s):$body"
  load / >"$tmp/stub.json"; stop
  jq -n --slurpfile h "$tmp/hello.json" --slurpfile s "$tmp/stub.json" -r \
    '[$h[0].throughput, $s[0].throughput, $h[0].latency_us.p99, $s[0].latency_us.p99, $s[0].generator.cpu_share] | @tsv' >>"$tmp/rounds"
  awk -F'\t' -v r="$r" 'END { printf "  round %d: hello %.0f req/s p99 %.2f ms | stub %.0f req/s p99 %.2f ms (generator at %.0f%% of its thread)\n", r, $1, $3/1000, $2, $4/1000, $5*100 }' "$tmp/rounds"
done
awk -F'\t' '{ h[NR]=$1; s[NR]=$2; r[NR]=$2/$1; hp[NR]=$3; sp[NR]=$4 }
  function med(a, n,   i, j, t, b) { for (i=1;i<=n;i++) b[i]=a[i]; for (i=1;i<=n;i++) for (j=i+1;j<=n;j++) if (b[j]<b[i]) { t=b[i]; b[i]=b[j]; b[j]=t }; return (n%2) ? b[(n+1)/2] : (b[n/2]+b[n/2+1])/2 }
  END { printf "  median: hello %.0f req/s, stub %.0f req/s, ratio stub/hello %.3f; p99 hello %.2f ms, stub %.2f ms\n", med(h,NR), med(s,NR), med(r,NR), med(hp,NR)/1000, med(sp,NR)/1000 }' "$tmp/rounds"

echo "== 2. measured delays vs declared (open loop 500 req/s over 64 connections, ${seconds}s)"
for dist in "uniform(5ms,20ms)" "lognormal(10ms,0.5)"; do
  start "$tmp/stub" --port "$port" --seed 7 --route "d=/d:$dist:$body"
  curl -s -X POST "http://127.0.0.1:$port/__stats/reset" >/dev/null
  "$runner" load "http://127.0.0.1:$port/d" --cpus 0 -c 64 --rate 500 -d "${seconds}s" --json >"$tmp/load.json"
  curl -s "http://127.0.0.1:$port/__stats" >"$tmp/stats.json"
  stop
  case "$dist" in
    uniform*) declared="mean 12.50  p50 12.50  p99 19.85  max 20.00" ;;
    lognormal*) declared="mean 11.33  p50 10.00  p99 32.02  max 1000 (cap)" ;;
  esac
  echo "  $dist"
  echo "    declared          $declared (ms)"
  jq -r '.routes.d | "    stub /__stats     mean \(.mean_ms*100|round/100)  p50 \(.p50_ms*100|round/100)  p99 \(.p99_ms*100|round/100)  max \(.max_ms*100|round/100) (ms, \(.count) requests)"' "$tmp/stats.json"
  jq -r '"    runner (client)   mean \(.latency_us.mean/10|round/100)  p50 \(.latency_us.p50/10|round/100)  p99 \(.latency_us.p99/10|round/100)  max \(.latency_us.max/10|round/100) (ms, \(.requests) ok, \(.errors_total) errors)"' "$tmp/load.json"
done
