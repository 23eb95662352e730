#!/usr/bin/env bash
# Build a Leyden AOT cache (JDK 25, JEP 483/514/515) for target/service.jar by hand:
#   1) record: run the service with -XX:AOTMode=record under a short workload, stop it with SIGTERM
#      (the JVM writes target/app.aotconf at exit; exit status 143 is expected);
#   2) create: java -XX:AOTMode=create ... writes target/app.aot.
# Then run:   java -XX:AOTCache=target/app.aot -jar target/service.jar
# The cache is only valid for the exact jars it was made from: rerun this after every build.
# usage: ./aot-train.sh [seconds of workload, default 10]   (needs curl; JAVA_HOME = a JDK 25)
set -euo pipefail
cd "$(dirname "$0")"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
SECS="${1:-10}"
PORT="${PORT:-18099}"
[ -f target/service.jar ] || { echo "aot-train: build first (mvn -B -q -DskipTests package)" >&2; exit 1; }
rm -f target/app.aotconf target/app.aot
# The workload below is plain HTTP/1.1: train a plain start whatever the caller's environment says.
unset TLS_CERT_FILE TLS_KEY_FILE HTTP2

PORT=$PORT "$JAVA" -XX:AOTMode=record -XX:AOTConfiguration=target/app.aotconf -jar target/service.jar \
    > target/aot-record.log 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
    curl -sf -o /dev/null "http://127.0.0.1:$PORT/health" && break
    kill -0 $pid 2>/dev/null || { cat target/aot-record.log >&2; exit 1; }
    sleep 0.1
done
end=$((SECONDS + SECS))
while [ $SECONDS -lt $end ]; do
    for path in /health /ready /api/generated/7 /api/generated/128 /api/generated/2048 /api/generated/8192 \
                /api/strings/hello /api/generated/abc /nope; do
        curl -s -o /dev/null "http://127.0.0.1:$PORT$path"
    done
    curl -s -o /dev/null -X POST "http://127.0.0.1:$PORT/api/generated/7"
done
kill -TERM $pid
wait $pid || true      # 143 after SIGTERM
trap - EXIT
grep -q "AOTConfiguration recorded" target/aot-record.log || { cat target/aot-record.log >&2; exit 1; }

"$JAVA" -XX:AOTMode=create -XX:AOTConfiguration=target/app.aotconf -XX:AOTCache=target/app.aot \
    -jar target/service.jar
ls -l target/app.aot
