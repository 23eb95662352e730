#!/usr/bin/env bash
# The resource sampler's effect on latency (issue 16, part 4): the same
# cells run twice, once with the sampler reading the service every
# `--interval` during the measured windows (`sample: { during_measure: true }`)
# and once with it off (`during_measure: false`: one reading at a window's
# start and one at its end). Prints p99 and max per runtime for each, and the
# ratio on/off of the medians over the repeats. Timing figures: nothing is
# asserted; read them with the host's load average, printed too.
#
#   scripts/sampler-effect.sh [--interval 200ms] [--repeats 3] [--seconds 5] [--off-first]
#
# The two passes run one after the other, so host drift between them is
# part of the difference: run it both ways (`--off-first`) and believe a
# difference only when it keeps its sign.
#
# Runs the users API (runtimes/CONTRACT.md, "Users") of go-nethttp and
# node-http at 50 connections, the GET/POST mix of experiments/node-vs-go.yaml,
# service on CPU 1 and generator on CPU 0. Results go to a temporary folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
interval=200ms repeats=3 seconds=5 passes="true false"
while [ $# -gt 0 ]; do
  case "$1" in
    --interval) interval=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --off-first) passes="false true"; shift ;;
    *) echo "usage: $0 [--interval 200ms] [--repeats 3] [--seconds 5] [--off-first]" >&2; exit 2 ;;
  esac
done
runner=${RUNNER:-$root/target/release/runner}
[ -x "$runner" ] || cargo build --release --locked --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

spec() { # $1 = true | false
  cat <<YAML
experiment: { name: sampler-$1, title: "sampler during_measure=$1" }
runtimes:
  go:
    dir: $root/runtimes/go-nethttp
    build: [go build -trimpath -o build/server ./cmd/server]
    start: ./build/server
    env: { GOMEMLIMIT: "off" }
  node:
    dir: $root/runtimes/node-http
    build: [npm run build --silent]
    start: node server.js
    env: { NODE_WORKERS: "1" }
workload:
  - { name: get, path: "/users/{{ rand(1, 10000) }}", weight: 70 }
  - { name: get-miss, path: "/users/{{ rand(1000000000000, 1999999999999) }}", weight: 10, expect: { status: 404 } }
  - { name: post, method: POST, path: /users, body: '{"name":"n{{ seq }}","email":"e{{ seq }}@x"}', weight: 20, expect: { status: 201 } }
axes: { concurrency: [50] }
load: { mode: closed, timeout: 10s, seed: 16 }
repeats: $repeats
warmup: { service: 2s, cell: 2s }
measure: { duration: ${seconds}s }
affinity: { service: [1], load: [0] }
sample: { interval: $interval, during_measure: $1 }
startup: { repeats: 0 }
gates: { generator_wait: off, littles_law: off }
results: $work/results
YAML
}

for on in $passes; do
  spec $on > "$work/sampler-$on.yaml"
  echo "== during_measure: $on (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  "$runner" exec "$work/sampler-$on.yaml" > "$work/exec-$on.log" 2>&1 || { cat "$work/exec-$on.log" >&2; exit 1; }
done

python3 - "$work/results" "$interval" "$passes" <<'PY'
import csv, glob, statistics, sys
results, interval, order = sys.argv[1], sys.argv[2], sys.argv[3]
def figures(on):
    (run,) = glob.glob(f"{results}/sampler-{on}/*/measurements.csv")
    by = {}
    for r in csv.DictReader(open(run)):
        if r["status"] != "failed":
            by.setdefault(r["runtime"], []).append(r)
    return by
on, off = figures("true"), figures("false")
print(f"sampler every {interval} during the window (on) vs off; median over repeats [min, max]; passes in order: {order}")
print(f"{'runtime':8} {'':4} {'req/s':>9} {'p99 ms':>22} {'max ms':>24}")
for rt in sorted(on):
    rows = {}
    for label, by in (("on", on), ("off", off)):
        p99 = [float(r["latency_p99_ms"]) for r in by.get(rt, [])]
        mx = [float(r["latency_max_ms"]) for r in by.get(rt, [])]
        rps = [float(r["throughput_rps"]) for r in by.get(rt, [])]
        rows[label] = statistics.median(p99)
        print(f"{rt:8} {label:4} {statistics.median(rps):9.0f} "
              f"{statistics.median(p99):8.2f} [{min(p99):.2f}, {max(p99):.2f}] "
              f"{statistics.median(mx):9.1f} [{min(mx):.1f}, {max(mx):.1f}]")
    print(f"{rt:8} p99 on/off: x{rows['on'] / rows['off']:.3f}")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
