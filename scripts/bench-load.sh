#!/usr/bin/env bash
# Benchmarks `runner load` against wrk -t1 and oha on 127.0.0.1 (issue 3).
#
# nginx (one worker, unlimited keep-alive) is pinned to SERVER_CPU, every
# generator to GEN_CPU, one generator thread each. For each tool and
# connection count it runs RUNS times for DURATION seconds and prints req/s,
# the generator's CPU-seconds (user+system from /usr/bin/time), requests per
# CPU-second, max RSS and p50/p99, then medians and our ratios to wrk and oha.
# A last row drives an open loop at OPEN_RATE req/s and reports the rate
# actually delivered and the CPU it cost (wrk2, when absent, is quoted at
# ~3.3 CPU-s for 10 s at 50k req/s on this machine).
#
# With SOAK=300 a last row runs `runner load` (closed loop, SOAK_CONNS
# connections) for 300 s and samples its RSS every 10 s: memory must stay
# flat however long the run (the histograms are fixed-size).
#
# Quick smoke run:  DURATION=2 RUNS=1 CONNS="50" scripts/bench-load.sh
# Env: DURATION RUNS CONNS OPEN_RATE OPEN_CONNS OPEN SOAK SOAK_CONNS SERVER_CPU GEN_CPU PORT TOOLS
set -euo pipefail

DURATION=${DURATION:-10}
RUNS=${RUNS:-3}
CONNS=${CONNS:-"50 200"}
OPEN_RATE=${OPEN_RATE:-50000}
OPEN_CONNS=${OPEN_CONNS:-200}
SERVER_CPU=${SERVER_CPU:-1}
GEN_CPU=${GEN_CPU:-0}
PORT=${PORT:-18089}
TOOLS=${TOOLS:-"wrk oha runner"}   # which closed-loop generators to run
OPEN=${OPEN:-1}                     # 0 skips the open-loop row
SOAK=${SOAK:-0}                     # seconds of the RSS soak row (0: none)
SOAK_CONNS=${SOAK_CONNS:-200}

cd "$(dirname "$0")/.."
need() { command -v "$1" >/dev/null 2>&1; }
apt_updated=
apt_install() {
    [ -n "$apt_updated" ] || { apt-get update -qq; apt_updated=1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
need wrk || apt_install wrk
need nginx || [ -x /usr/sbin/nginx ] || apt_install nginx-light
[ -x /usr/bin/time ] || apt_install time
case " $TOOLS " in *" oha "*) need oha || cargo install oha --locked ;; esac
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
cargo build --release --quiet
RUNNER=$PWD/target/release/runner

work=$(mktemp -d)
nginx_pid=
cleanup() {
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/logs"
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_timeout 300s;
    keepalive_requests 2147483647;
    client_body_temp_path $work/tmp;
    proxy_temp_path $work/tmp;
    fastcgi_temp_path $work/tmp;
    uwsgi_temp_path $work/tmp;
    scgi_temp_path $work/tmp;
    server {
        listen 127.0.0.1:$PORT;
        location / { return 200 "hello, world\n"; }
    }
}
CONF
mkdir -p "$work/tmp"
taskset -c "$SERVER_CPU" "$NGINX" -p "$work" -c "$work/nginx.conf" &
nginx_pid=$!
for _ in $(seq 50); do
    curl -sf "http://127.0.0.1:$PORT/" >/dev/null 2>&1 && break
    sleep 0.1
done
URL="http://127.0.0.1:$PORT/"

results=$work/results.tsv
# One measurement: tool conns run -> appends "tool conns run req/s cpu_s rss_kb p50_ms p99_ms requests"
measure() {
    local tool=$1 conns=$2 run=$3 out=$work/out.txt tfile=$work/time.txt
    case $tool in
    wrk) /usr/bin/time -f "%U %S %M" -o "$tfile" taskset -c "$GEN_CPU" \
            wrk -t1 -c "$conns" -d "${DURATION}s" --latency "$URL" >"$out" 2>&1 ;;
    oha) /usr/bin/time -f "%U %S %M" -o "$tfile" taskset -c "$GEN_CPU" \
            oha -z "${DURATION}s" -c "$conns" --no-tui --output-format json "$URL" >"$out" 2>/dev/null ;;
    runner) /usr/bin/time -f "%U %S %M" -o "$tfile" taskset -c "$GEN_CPU" \
            "$RUNNER" load "$URL" -c "$conns" -d "${DURATION}s" --threads 1 --json >"$out" ;;
    runner-open) /usr/bin/time -f "%U %S %M" -o "$tfile" taskset -c "$GEN_CPU" \
            "$RUNNER" load "$URL" -c "$conns" -d "${DURATION}s" --threads 1 --rate "$OPEN_RATE" \
            --warmup 1s --json >"$out" ;;
    esac
    python3 - "$tool" "$conns" "$run" "$out" "$tfile" "$DURATION" >>"$results" <<'PY'
import json, re, sys
tool, conns, run, out, tfile, duration = sys.argv[1:]
user, system, rss = open(tfile).read().split()[-3:]
cpu = float(user) + float(system)
text = open(out).read()
def ms(v, unit):
    return float(v) * {"us": 1e-3, "ms": 1.0, "s": 1000.0}[unit]
if tool == "wrk":
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    requests = int(re.search(r"(\d+) requests in", text).group(1))
    p = {k: ms(v, u) for k, v, u in re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)$", text, re.M)}
    p50, p99 = p["50"], p["99"]
elif tool == "oha":
    j = json.loads(text)
    rps = j["summary"]["requestsPerSec"]
    requests = sum(j["statusCodeDistribution"].values())
    p50, p99 = j["latencyPercentiles"]["p50"] * 1000, j["latencyPercentiles"]["p99"] * 1000
else:
    j = json.loads(text)
    rps = j["achieved_rate"] if tool == "runner-open" else j["throughput"]
    requests = j["requests"] + j["errors_total"]
    p50, p99 = j["latency_us"]["p50"] / 1000, j["latency_us"]["p99"] / 1000
    # Whole-process CPU (includes startup and warmup), like the other tools.
print(f"{tool}\t{conns}\t{run}\t{rps:.0f}\t{cpu:.2f}\t{rss}\t{p50:.3f}\t{p99:.3f}\t{requests}")
PY
}

echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); server CPU $SERVER_CPU, generators CPU $GEN_CPU; ${DURATION}s x $RUNS runs"
for conns in $CONNS; do
    for run in $(seq "$RUNS"); do
        for tool in $TOOLS; do
            measure "$tool" "$conns" "$run"
        done
    done
done
[ "$OPEN" = 0 ] || measure runner-open "$OPEN_CONNS" 1

# The soak: RSS (VmRSS, kB) of one long run, every 10 s.
soak_line=
if [ "$SOAK" -gt 0 ]; then
    taskset -c "$GEN_CPU" "$RUNNER" load "$URL" -c "$SOAK_CONNS" -d "${SOAK}s" --threads 1 \
        --json >"$work/soak.json" &
    soak_pid=$!
    samples=()
    for _ in $(seq $((SOAK / 10))); do
        sleep 10
        rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$soak_pid/status" 2>/dev/null) || break
        [ -n "$rss" ] || break # exited (a zombie has no VmRSS)
        samples+=("$rss")
    done
    wait "$soak_pid"
    soak_line=$(python3 - "$work/soak.json" "$SOAK" "$SOAK_CONNS" "${samples[@]}" <<'PY'
import json, sys
out, soak, conns, *rss = sys.argv[1:]
j = json.load(open(out))
mb = [int(v) / 1024 for v in rss]
print(f"  soak: {conns} connections for {soak} s, {j['requests']} requests; RSS every 10 s (MB): "
      + " ".join(f"{v:.1f}" for v in mb)
      + f"; first {mb[0]:.1f}, max {max(mb):.1f}, last {mb[-1]:.1f} MB")
PY
)
fi

python3 - "$results" "$DURATION" "$OPEN_RATE" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
duration, open_rate = float(sys.argv[2]), float(sys.argv[3])
print(f"{'tool':<12}{'conns':>6}{'run':>4}{'req/s':>10}{'CPU-s':>8}{'req/CPU-s':>11}{'maxRSS MB':>10}{'p50 ms':>9}{'p99 ms':>9}")
for t, c, r, rps, cpu, rss, p50, p99, n in rows:
    per_cpu = float(n) / float(cpu) if float(cpu) > 0 else 0
    print(f"{t:<12}{c:>6}{r:>4}{float(rps):>10.0f}{float(cpu):>8.2f}{per_cpu:>11.0f}{int(rss)/1024:>10.1f}{float(p50):>9.3f}{float(p99):>9.3f}")
print("\nmedians and ratios (req per generator CPU-second):")
med = {}
for t, c, r, rps, cpu, rss, p50, p99, n in rows:
    med.setdefault((t, c), []).append(float(n) / float(cpu) if float(cpu) > 0 else 0)
for (t, c), v in sorted(med.items()):
    med[(t, c)] = statistics.median(v)
for c in sorted({c for t, c in med if t == "runner"}, key=int):
    ours = med[("runner", c)]
    line = f"  {c} connections: runner {ours:.0f}"
    for anchor in ("wrk", "oha"):
        if (anchor, c) in med and med[(anchor, c)] > 0:
            line += f", {anchor} {med[(anchor, c)]:.0f} (runner/{anchor} = {ours / med[(anchor, c)]:.2f}x)"
    print(line)
for t, c, r, rps, cpu, rss, p50, p99, n in rows:
    if t == "runner-open":
        print(f"  open loop at {open_rate:.0f} req/s, {c} connections: delivered {float(rps):.0f} req/s "
              f"({100 * float(rps) / open_rate:.1f}%), {cpu} CPU-s for {duration:.0f} s measured + 1 s warmup "
              f"(wrk2 ~3.3 CPU-s for 10 s), p50 {p50} ms, p99 {p99} ms")
PY
[ -z "$soak_line" ] || echo "$soak_line"
