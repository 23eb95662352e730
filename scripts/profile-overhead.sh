#!/usr/bin/env bash
# What each profiler costs on one cell: the Go service (runtimes/go-nethttp)
# and Helidon SE on JDK 25 (runtimes/java-helidon), each pinned to CPU 0 with
# `runner load` pinned to CPU 1, GET /api/generated/2048 at 16 connections,
# measured with no profiler and then with each one the runner attaches
# (the same commands as src/profile), side by side: throughput and p99.
# Every load is bounded (WARMUP + DURATION per row) and aimed at 127.0.0.1.
# Needs built services (go build; mvn package) and, for async-profiler,
# runtimes/java-helidon/target/async-profiler (scripts/async-profiler.sh).
# Each start is primed by PRIME (15s) of unmeasured load first, and each
# run of rows ends with `none (again)`: the gap between the two `none` rows
# is the drift of the host, to read every other gap against.
# Prints figures; asserts nothing (a busy host moves them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/jdk25.sh
runner=${RUNNER:-$root/target/release/runner}
duration=${DURATION:-8s}
warmup=${WARMUP:-3s}
secs=${duration%s}
conns=16
path=/api/generated/2048
tmp=$(mktemp -d)
service_pid=
cleanup() { [ -n "$service_pid" ] && kill "$service_pid" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_up() { # port: up, then primed (JIT, heap) by PRIME of unmeasured load
  for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$1/health" >/dev/null && break; sleep 0.1; done
  curl -sf "http://127.0.0.1:$1/health" >/dev/null || { echo "service on $1 never came up" >&2; exit 1; }
  "$runner" load --cpus 1 -c $conns -d "${PRIME:-15s}" "http://127.0.0.1:$1$path" >/dev/null
}
measure() { # label port [command run during the window]
  local label=$1 port=$2; shift 2
  "$runner" load --json --cpus 1 -c $conns --warmup "$warmup" -d "$duration" "http://127.0.0.1:$port$path" > "$tmp/load.json" &
  local load=$!
  if [ $# -gt 0 ]; then sleep "${warmup%s}"; "$@" >/dev/null 2>&1 || echo "  ($label: profiler command failed)" >&2; fi
  wait $load
  python3 - "$label" "$tmp/load.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
print(f"{sys.argv[1]:<34} {d['throughput']:>10.0f} req/s   p99 {d['latency_us']['p99']/1000:>8.2f} ms")
PY
}
stop_service() { kill "$service_pid"; wait "$service_pid" 2>/dev/null || true; service_pid=; }

echo "== Go net/http (GOMAXPROCS=1, CPU 0), $conns connections, $duration after $warmup warmup"
(cd runtimes/go-nethttp && go build -trimpath -o "$tmp/go-server" ./cmd/server)
gport=$(free_port); pport=$(free_port)
PORT=$gport PPROF=true PPROF_PORT=$pport GOMAXPROCS=1 taskset -c 0 "$tmp/go-server" 2>/dev/null & service_pid=$!
wait_up "$gport"
measure "go: none" "$gport"
measure "go: pprof CPU" "$gport" curl -sf -o "$tmp/cpu.pb.gz" "http://127.0.0.1:$pport/debug/pprof/profile?seconds=$secs"
measure "go: pprof heap (delta)" "$gport" curl -sf -o "$tmp/heap.pb.gz" "http://127.0.0.1:$pport/debug/pprof/heap?seconds=$secs"
if command -v perf >/dev/null; then
  measure "go: perf record -F 99 -g" "$gport" perf record -F 99 -g -o "$tmp/perf.data" -p "$service_pid" -- sleep "$secs"
fi
measure "go: none (again)" "$gport"
stop_service

java_run() { # extra JVM flags...
  jport=$(free_port)
  (cd runtimes/java-helidon && PORT=$jport exec taskset -c 0 "$JAVA_HOME/bin/java" -XX:ActiveProcessorCount=1 -XX:MaxRAMPercentage=25 "$@" -jar target/service.jar >/dev/null 2>&1) & service_pid=$!
  wait_up "$jport"
  jvm=$service_pid
}
jcmd=$JAVA_HOME/bin/jcmd
lib=$root/runtimes/java-helidon/target/async-profiler/libasyncProfiler.so
echo "== Helidon SE on JDK 25 (ActiveProcessorCount=1, CPU 0), $conns connections, $duration after $warmup warmup"
java_run
measure "jvm: none" "$jport"
measure "jvm: JFR (settings=profile)" "$jport" bash -c "$jcmd $jvm JFR.start name=o settings=profile filename=$tmp/o.jfr && sleep $secs && $jcmd $jvm JFR.stop name=o"
if [ -f "$lib" ]; then
  measure "jvm: async-profiler cpu" "$jport" bash -c "$jcmd $jvm JVMTI.agent_load $lib '\"start,event=cpu,interval=10ms\"' && sleep $secs && $jcmd $jvm JVMTI.agent_load $lib '\"stop,collapsed,file=$tmp/cpu.folded\"'"
  measure "jvm: async-profiler alloc" "$jport" bash -c "$jcmd $jvm JVMTI.agent_load $lib '\"start,event=alloc,alloc=512k\"' && sleep $secs && $jcmd $jvm JVMTI.agent_load $lib '\"stop,collapsed,total,file=$tmp/alloc.folded\"'"
else
  echo "(no $lib: run scripts/async-profiler.sh in runtimes/java-helidon first)"
fi
if command -v perf >/dev/null; then
  measure "jvm: perf record -F 99 -g" "$jport" perf record -F 99 -g -o "$tmp/perf.data" -p "$jvm" -- sleep "$secs"
fi
measure "jvm: none (again)" "$jport"
stop_service
java_run "-Xlog:gc*:file=$tmp/gc.log:uptime,timemillis,level,tags:filecount=2,filesize=8m"
measure "jvm: GC log (-Xlog:gc*), own start" "$jport"
stop_service
