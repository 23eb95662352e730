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
# The TLS section (SECTIONS="... tls", on by default) measures, against the
# same nginx (one worker, SERVER_CPU) with a CA and a server certificate made
# by openssl in the temp dir (removed at exit): HTTPS/1.1 keep-alive (runner
# vs wrk), HTTP/2 over TLS and h2c (runner --h2/--h2c --streams vs h2load
# -m), a new connection per request (runner --new-connections with and
# without TLS resumption vs wrk -H 'Connection: close': wrk keeps each
# connection's TLS session across its reconnects and resumes it, so its row
# is a resumed-handshake rate, to be read against runner-resumed; nginx
# logged 3,006 of wrk's 3,014 handshakes as resumed on 2026-12-05, and
# runner-full, every handshake full, has no wrk counterpart), and the RSS at
# TLS_CONNS (200) TLS connections. Every figure is requests per generator
# CPU-second, side by side. It installs nghttp2-client (h2load) with apt.
#
# Quick smoke run:  DURATION=2 RUNS=1 CONNS="50" scripts/bench-load.sh
# TLS only:         SECTIONS=tls DURATION=5 scripts/bench-load.sh
# Env: DURATION RUNS CONNS OPEN_RATE OPEN_CONNS OPEN SOAK SOAK_CONNS SERVER_CPU GEN_CPU PORT TOOLS
#      SECTIONS TLS_PORT H2C_PORT TLS_CONNS H2_CONNS H2_STREAMS
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
SECTIONS=${SECTIONS:-"plain tls"}    # plain: the HTTP/1.1 rows above; tls: HTTPS, h2, h2c
TLS_PORT=${TLS_PORT:-18443}
H2C_PORT=${H2C_PORT:-18090}
TLS_CONNS=${TLS_CONNS:-200}
H2_CONNS=${H2_CONNS:-10}
H2_STREAMS=${H2_STREAMS:-10}
section() { case " $SECTIONS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

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
if section plain; then
    case " $TOOLS " in *" oha "*) need oha || cargo install oha --locked ;; esac
fi
if section tls; then need h2load || apt_install nghttp2-client; fi
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
# The TLS section's servers: a throwaway CA and a certificate for
# 127.0.0.1/localhost signed by it (a self-signed leaf is a CA certificate
# to rustls, which refuses it as a server's), all in $work.
tls_servers=
if section tls; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
        -subj "/CN=runner bench CA" -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -subj "/CN=localhost" -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
    printf 'basicConstraints=CA:FALSE\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n' >"$work/ext.cnf"
    openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" \
        -CAcreateserial -days 1 -extfile "$work/ext.cnf" -out "$work/server.pem" 2>/dev/null
    tls_servers="
    ssl_certificate $work/server.pem;
    ssl_certificate_key $work/server.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:SSL:10m;
    ssl_session_tickets on;
    http2_max_concurrent_streams 128;
    server {
        listen 127.0.0.1:$TLS_PORT ssl http2;
        location / { return 200 \"hello, world\\n\"; }
    }
    server {
        listen 127.0.0.1:$H2C_PORT http2;
        location / { return 200 \"hello, world\\n\"; }
    }"
fi
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
    }$tls_servers
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
: >"$results"
if section plain; then
    for conns in $CONNS; do
        for run in $(seq "$RUNS"); do
            for tool in $TOOLS; do
                measure "$tool" "$conns" "$run"
            done
        done
    done
    [ "$OPEN" = 0 ] || measure runner-open "$OPEN_CONNS" 1
fi

# ---------------------------------------------------------------------------
# The TLS section: HTTPS/1.1, HTTP/2 over TLS, h2c, new connections, RSS.
# One measurement: row tool command... -> appends
# "row tool req/s cpu_s rss_kb requests note" to $tls_results.
tls_results=$work/tls.tsv
: >"$tls_results"
measure_tls() {
    local row=$1 tool=$2 out=$work/tls-out.txt tfile=$work/tls-time.txt
    shift 2
    /usr/bin/time -f "%U %S %M" -o "$tfile" taskset -c "$GEN_CPU" "$@" >"$out" 2>&1 || {
        echo "  $row/$tool failed: $(tail -3 "$out")" >&2
        return 0
    }
    python3 - "$row" "$tool" "$out" "$tfile" >>"$tls_results" <<'PY'
import json, re, sys
row, tool, out, tfile = sys.argv[1:]
user, system, rss = open(tfile).read().split()[-3:]
cpu = float(user) + float(system)
text = open(out).read()
note = ""
if tool.startswith("wrk"):
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    requests = int(re.search(r"(\d+) requests in", text).group(1))
    errors = re.search(r"Socket errors: (.*)", text)
    note = f"socket errors: {errors.group(1)}" if errors else ""
elif tool.startswith("h2load"):
    rps = float(re.search(r"finished in [\d.]+s, ([\d.]+) req/s", text).group(1))
    requests = int(re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", text).group(1))
else:
    j = json.loads(text[text.index("{"):])
    rps = j["throughput"]
    requests = j["requests"] + j["errors_total"]
    t = j.get("transport", {})
    tls = t.get("tls") or {}
    n = tls.get("negotiated") or {}
    if tls:
        note = (f"{n.get('version')} {n.get('cipher_suite')} {n.get('key_exchange')} ALPN {n.get('alpn')}; handshakes "
                f"{tls['handshakes_full']} full {tls['handshakes_resumed']} resumed")
    if j["errors_total"]:
        note += f"; {j['errors_total']} errors"
    note += f"; RSS with connections open {j['generator_memory']['rss_bytes'] / 2**20:.1f} MB"
print(f"{row}\t{tool}\t{rps:.0f}\t{cpu:.2f}\t{rss}\t{requests}\t{note}")
PY
}

if section tls; then
    HTTPS=https://127.0.0.1:$TLS_PORT/
    H2C=http://127.0.0.1:$H2C_PORT/
    CA=$work/ca.pem
    D=${DURATION}s
    for _ in $(seq 50); do
        curl -sf --cacert "$CA" "$HTTPS" >/dev/null 2>&1 && break
        sleep 0.1
    done
    for c in $CONNS; do
        measure_tls "https/1.1 keep-alive c=$c" wrk wrk -t1 -c "$c" -d "$D" "$HTTPS"
        measure_tls "https/1.1 keep-alive c=$c" runner "$RUNNER" load "$HTTPS" --ca "$CA" \
            -c "$c" -d "$D" --json
    done
    h2="c=$H2_CONNS x $H2_STREAMS streams"
    measure_tls "h2 over tls $h2" h2load h2load -t1 -c "$H2_CONNS" -m "$H2_STREAMS" -D "$DURATION" "$HTTPS"
    measure_tls "h2 over tls $h2" runner "$RUNNER" load "$HTTPS" --h2 --ca "$CA" \
        -c "$H2_CONNS" --streams "$H2_STREAMS" -d "$D" --json
    measure_tls "h2c $h2" h2load h2load -t1 -c "$H2_CONNS" -m "$H2_STREAMS" -D "$DURATION" "$H2C"
    measure_tls "h2c $h2" runner "$RUNNER" load "$H2C" --h2c \
        -c "$H2_CONNS" --streams "$H2_STREAMS" -d "$D" --json
    # A handshake per request: wrk closes after each answer with the header
    # and resumes its session on the next connection (see the top).
    measure_tls "new connection per request c=8" wrk-close wrk -t1 -c 8 -d "$D" \
        -H "Connection: close" "$HTTPS"
    measure_tls "new connection per request c=8" runner-resumed "$RUNNER" load "$HTTPS" --ca "$CA" \
        -c 8 -d "$D" --new-connections --json
    measure_tls "new connection per request c=8" runner-full "$RUNNER" load "$HTTPS" --ca "$CA" \
        -c 8 -d "$D" --new-connections --no-resumption --json
    measure_tls "RSS at $TLS_CONNS tls connections" wrk wrk -t1 -c "$TLS_CONNS" -d "$D" "$HTTPS"
    measure_tls "RSS at $TLS_CONNS tls connections" runner "$RUNNER" load "$HTTPS" --ca "$CA" \
        -c "$TLS_CONNS" -d "$D" --json
fi

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

if section plain; then python3 - "$results" "$DURATION" "$OPEN_RATE" <<'PY'
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
fi
[ -z "$soak_line" ] || echo "$soak_line"
if section tls; then python3 - "$tls_results" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
print("\nTLS and HTTP/2 (requests per generator CPU-second; CPU and max RSS of the whole process):")
print(f"{'row':<40}{'tool':<16}{'req/s':>9}{'CPU-s':>7}{'req/CPU-s':>11}{'maxRSS MB':>10}  note")
for row, tool, rps, cpu, rss, n, note in rows:
    per_cpu = float(n) / float(cpu) if float(cpu) > 0 else 0
    print(f"{row:<40}{tool:<16}{float(rps):>9.0f}{float(cpu):>7.2f}{per_cpu:>11.0f}{int(rss) / 1024:>10.1f}  {note}")
PY
fi
