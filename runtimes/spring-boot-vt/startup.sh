#!/usr/bin/env bash
# Startup figures of spring-boot-vt on this host: milliseconds from exec to the first 200 on /health,
# and the process's RSS right after (and again after 2 s idle). Runs target/service.jar (build it first:
# mvn -B -q -DskipTests package) N times (default 3) on a free 127.0.0.1 port, without database or
# downstreams, and ends each JVM by its PID.
#
#   ./startup.sh [N] [extra JVM flags...]
set -euo pipefail
cd "$(dirname "$0")"
. ../../scripts/jdk25.sh
runs="${1:-3}"
shift || true
jar="${JAR:-target/service.jar}"  # JAR=PATH: another layout of the same build (see README)
[ -f "$jar" ] || { echo "startup.sh: $jar is missing; run: mvn -B -q -DskipTests package" >&2; exit 1; }
echo "java: $("$JAVA_HOME/bin/java" -version 2>&1 | head -1); flags: -XX:ActiveProcessorCount=$(nproc) $*"
for i in $(seq 1 "$runs"); do
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  start=$(date +%s%N)
  PORT=$port HOST=127.0.0.1 "$JAVA_HOME/bin/java" "-XX:ActiveProcessorCount=$(nproc)" "$@" -jar "$jar" >/dev/null 2>&1 &
  pid=$!
  ok=""
  for _ in $(seq 1 1200); do
    if curl -fs -o /dev/null "http://127.0.0.1:$port/health"; then ok=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  end=$(date +%s%N)
  if [ -z "$ok" ]; then echo "run $i: no 200 on /health within 60 s" >&2; kill "$pid" 2>/dev/null || true; exit 1; fi
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  sleep 2
  rss_idle=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  echo "run $i: first 200 on /health after $(( (end - start) / 1000000 )) ms; RSS $((rss / 1024)) MiB then, $((rss_idle / 1024)) MiB 2 s later"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
done
