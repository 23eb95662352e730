#!/usr/bin/env bash
# Load hosts over SSH, tested for real (called by .ci/run): network
# namespaces of our own joined by a bridge, an OpenSSH server (Debian's
# openssh-server) in each load host's namespace with generated keys, and the
# controlling runner and its service in a namespace too.
#
#   ctl (10.213.0.1: runner exec + the fixture service of the local-service runs)
#   l1  (10.213.0.11: sshd) , l2 (10.213.0.12: sshd): load hosts
#   svc (10.213.0.20: sshd): the service host of the remote-service runs
#   br  (the bridge; every veth pair is created inside the namespaces)
#
# Network safety: every address exists only inside namespaces this script
# creates (named rnr-test-<pid>-*); the root namespace gets no address, no
# link, no route. Everything created is removed on exit, also on failure:
# processes by PID (and by the namespaces' own pid lists), namespaces by name.
# Every load is bounded in time (seconds).
#
# Checks: a run with the load on one remote host (the binary copied there by
# hash, the same run directory and reports as a local run, per-host file and
# fingerprint), a run with two load hosts (connections split, counts of the
# merged row equal to the hosts' sum, window skew), the same over HTTPS (the
# run's CA sent to the hosts, the handshakes of both counted), and that killing the SSH
# connection mid-run leaves nothing running on the load host and a run that
# `--resume` completes; then the same with the service on `svc` over SSH
# and the load on l1 and l2 (sources copied and built there, the same run
# directory files as a local-service run, every host in environment.json),
# and that killing the SSH connections mid-run leaves no service process in
# svc (by the PID the far side reported, and its cgroup empty) and a run
# that `--resume` completes.
#
# Needs root (namespaces), iproute2, python3, and sshd (installed by .ci/run:
# apt-get install -y openssh-server; the system's sshd service is never used).
# Prints figures: session open time, RTT, window skew.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runner=${RUNNER:-$root/target/debug/runner}
SSHD=${SSHD:-/usr/sbin/sshd}
P="rnr-test-$$-"
NET=10.213.0
fail() { echo "test-hosts: FAIL: $*" >&2; exit 1; }
section() { echo "== $* (at ${SECONDS} s)"; }

[ "$(id -u)" = 0 ] || fail "needs root (network namespaces)"
[ -x "$SSHD" ] || fail "no $SSHD: apt-get install -y openssh-server"
command -v ip >/dev/null || fail "no ip(8): apt-get install -y iproute2"
[ -x "$runner" ] || fail "no runner binary at $runner (cargo build, or set RUNNER)"

tmp=$(mktemp -d /tmp/rnr-test-hosts.XXXXXX)
chmod 755 "$tmp"
# runner copies itself to every host: a debug build without its debug
# information is a quarter of the bytes (and of the test's time here).
if command -v objcopy >/dev/null && objcopy --strip-debug "$runner" "$tmp/runner" 2>/dev/null; then
    runner=$tmp/runner
fi
pids=()
namespaces=()

cleanup() {
    set +e
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null
    done
    sleep 0.3
    for pid in "${pids[@]}"; do
        kill -KILL "$pid" 2>/dev/null
    done
    # Whatever still runs inside our own namespaces, by PID.
    for ns in "${namespaces[@]}"; do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do
            kill -KILL "$pid" 2>/dev/null
        done
    done
    for ns in "${namespaces[@]}"; do
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ns_add() {
    ip netns add "$P$1"
    namespaces+=("$P$1")
    ip -n "$P$1" link set lo up
}

in_ns() { local n=$1; shift; ip netns exec "$P$n" "$@"; }

addr_of() { case $1 in ctl) echo "$NET.1" ;; l*) echo "$NET.1${1#l}" ;; svc) echo "$NET.20" ;; esac; }

section "namespaces ${P}{br,ctl,l1,l2,svc} on $NET.0/24"
ns_add br
ip -n "${P}br" link add br0 type bridge
ip -n "${P}br" link set br0 up
join() { # name, address
    ns_add "$1"
    ip -n "${P}br" link add "v-$1" type veth peer name eth0 netns "$P$1"
    ip -n "${P}br" link set "v-$1" master br0 up
    ip -n "$P$1" addr add "$2/24" dev eth0
    ip -n "$P$1" link set eth0 up
}
join ctl "$NET.1"
join l1 "$NET.11"
join l2 "$NET.12"
join svc "$NET.20"
# Nothing of ours may exist in the root namespace.
if ip -o addr show | grep -q "$NET\."; then fail "an address of $NET.0/24 is in the root namespace"; fi

section "keys and sshd in l1, l2, svc"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/id" -C rnr-test-client
cp "$tmp/id.pub" "$tmp/authorized_keys"
: > "$tmp/known_hosts"
mkdir -p /run/sshd # sshd's privilege separation directory (Debian's own path)
sshd_pids=()
for h in l1 l2 svc; do
    addr=$(addr_of "$h")
    mkdir -p "$tmp/$h"
    ssh-keygen -q -t ed25519 -N '' -f "$tmp/$h/host_key"
    echo "[$addr]:2222 $(cut -d' ' -f1,2 "$tmp/$h/host_key.pub")" >> "$tmp/known_hosts"
    cat > "$tmp/$h/sshd_config" <<EOF
Port 2222
ListenAddress $addr
HostKey $tmp/$h/host_key
PidFile $tmp/$h/sshd.pid
AuthorizedKeysFile $tmp/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
# A silent path (no FIN, no RST) is noticed in ~6 s, as the client does.
ClientAliveInterval 2
ClientAliveCountMax 3
EOF
    if [ "$h" = svc ]; then
        # The service host enters only the network namespace (not `ip netns
        # exec`, which mounts a fresh /sys without cgroupfs), so the
        # services started there get the cgroups this machine gives.
        nsenter --net="/run/netns/$P$h" "$SSHD" -D -e -f "$tmp/$h/sshd_config" 2> "$tmp/$h/sshd.log" &
    else
        in_ns "$h" "$SSHD" -D -e -f "$tmp/$h/sshd_config" 2> "$tmp/$h/sshd.log" &
    fi
    pids+=($!)
done
for h in l1 l2 svc; do
    for _ in $(seq 50); do [ -s "$tmp/$h/sshd.pid" ] && break; sleep 0.1; done
    [ -s "$tmp/$h/sshd.pid" ] || fail "sshd in $h did not start: $(cat "$tmp/$h/sshd.log")"
    pids+=("$(cat "$tmp/$h/sshd.pid")")
    sshd_pids+=("$(cat "$tmp/$h/sshd.pid")")
done
for h in l1 l2 svc; do
    addr=$(addr_of "$h")
    for _ in $(seq 50); do
        in_ns ctl ssh -o BatchMode=yes -o ConnectTimeout=2 -p 2222 -i "$tmp/id" \
            -o UserKnownHostsFile="$tmp/known_hosts" -o StrictHostKeyChecking=yes \
            "root@$addr" true 2>/dev/null && break
        sleep 0.1
    done || true
    in_ns ctl ssh -o BatchMode=yes -p 2222 -i "$tmp/id" -o UserKnownHostsFile="$tmp/known_hosts" \
        -o StrictHostKeyChecking=yes "root@$addr" true || fail "ssh to $addr does not work: $(cat "$tmp/$h/sshd.log")"
done

host_map() { # host name -> its YAML map
    echo "{ ssh: root@$(addr_of "$1"), port: 2222, identity: $tmp/id, known_hosts: $tmp/known_hosts, dir: $tmp/$1/runner }"
}
host_yaml() { # host name -> one YAML list item
    echo "    - $(host_map "$1")"
}

write_spec() { # file, concurrency list, duration, warmup, load hosts...
    SERVICE_HOST="{ address: $NET.1 }" START="start: python3 service.py" write_spec_on "$@"
}

# As write_spec, the service host from $SERVICE_HOST. On the service host
# the fixture is built (copied into build/ of the copy there, never of the
# repository) and started from its build output.
write_spec_svc() {
    SERVICE_HOST="$(host_map svc)" START='build: ["mkdir -p build && cp service.py build/service.py"]
    artifact: build/service.py
    start: python3 build/service.py' write_spec_on "$@"
}

write_spec_on() {
    local file=$1 conc=$2 duration=$3 warmup=$4; shift 4
    {
        cat <<EOF
experiment: { name: hosts-test, title: load hosts over SSH, description: scripts/test-hosts.sh }
runtimes:
  py:
    dir: $root/tests/fixtures/exec
    $START
    health: { path: /health, timeout: 10s, interval: 50ms }
    stop: { signal: TERM, grace: 3s }
    env: { BIND: "0.0.0.0" }
${PROTOCOL:+    protocols: [$PROTOCOL]}
workload: { method: GET, path: "/work/{{ payload }}", expect: { status: 200 } }
axes: { payload: [64], concurrency: [$conc] }
repeats: 1
startup: { repeats: 0 }
warmup: { service: $warmup, cell: $warmup }
measure: { duration: $duration }
${RAMP:+load: { ramp: $RAMP \}}
${PROTOCOL:+load: { protocol: $PROTOCOL \}}
results: $tmp/results
hosts:
  service: $SERVICE_HOST
  load:
EOF
        for h in "$@"; do host_yaml "$h"; done
    } > "$file"
}

newest_run() { find "$tmp/results/hosts-test" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1; }

section "one remote load host (l1)"
write_spec "$tmp/one.yaml" "2, 4" 2s 1s l1
"$runner" validate "$tmp/one.yaml"
in_ns ctl timeout 120 "$runner" exec "$tmp/one.yaml" > "$tmp/one.out" 2>&1 || { cat "$tmp/one.out"; fail "runner exec with one load host"; }
one=$(newest_run)
ls "$tmp/l1/runner"/runner-* >/dev/null || fail "the runner binary was not copied to l1"
[ ! -e "$tmp/l2/runner" ] || fail "l2 got a binary it was not asked to run"
python3 - "$one" 1 <<'PY'
import csv, json, pathlib, sys
run, hosts = pathlib.Path(sys.argv[1]), int(sys.argv[2])
def fail(m): sys.exit(f"test-hosts: FAIL: {m} ({run})")
status = json.loads((run / "status.json").read_text())
if status["state"] != "complete": fail(f"state {status['state']}: {status.get('message')}")
rows = list(csv.DictReader(open(run / "measurements.csv")))
if len(rows) != 2: fail(f"{len(rows)} rows, want 2")
for name in ["report.md", "report.html", "summary-by-cell.csv", "environment.json"]:
    if not (run / name).exists(): fail(f"no {name}")
for r in rows:
    if r["status"] == "failed": fail(f"cell {r['cell_id']} failed: {r['reason']}")
    if r["status"] == "suspect": print(f"  {r['cell_id']} suspect: {r['reason']}")
    if int(r["requests"]) <= 0: fail(f"cell {r['cell_id']} has no ok requests")
    stem = r["cell_id"].replace("/", "__")
    if not (run / "histograms" / f"{stem}.hlog").exists(): fail(f"no histogram for {r['cell_id']}")
    parts = list(csv.DictReader(open(run / "load-hosts" / f"{stem}.csv")))
    if len(parts) != hosts: fail(f"{len(parts)} load hosts in {stem}.csv, want {hosts}")
    if sum(int(p["ok"]) for p in parts) != int(r["requests"]): fail(f"hosts' ok do not add up to the row's in {stem}")
    if sum(int(p["connections"]) for p in parts) != int(r["concurrency"]): fail(f"connections do not add up in {stem}")
    for p in parts:
        print(f"  {r['cell_id']:<22} {p['host']:<20} conns {p['connections']:>2} ok {int(p['ok']):>6} "
              f"p99 {float(p['p99_ms']):7.2f} ms  rtt {float(p['rtt_ms']):.3f} ms  "
              f"open {float(p['session_open_ms']):6.1f} ms{' (copied)' if p['installed'] == 'true' else ''}  "
              f"window start +{float(p['window_start_ms']):.3f} ms")
env = json.loads((run / "environment.json").read_text())
load_hosts = [h for h in env.get("hosts", []) if h["role"] == "load"]
if len(load_hosts) != hosts: fail(f"environment.json records {len(load_hosts)} load hosts, want {hosts}")
for h in load_hosts:
    if not h["host"]["kernel"] or h["host"]["logical_cpus"] < 1: fail(f"empty fingerprint for {h['name']}")
    if h.get("rtt_ms") is None: fail(f"no RTT for {h['name']}")
    print(f"  fingerprint {h['name']}: {h['fingerprint']}; rtt {h['rtt_ms']:.3f} ms")
PY
"$runner" report "$one" > /dev/null || fail "runner report cannot re-render the run"

section "two load hosts (l1, l2)"
write_spec "$tmp/two.yaml" "4, 8" 2s 1s l1 l2
in_ns ctl timeout 120 "$runner" exec "$tmp/two.yaml" > "$tmp/two.out" 2>&1 || { cat "$tmp/two.out"; fail "runner exec with two load hosts"; }
two=$(newest_run)
ls "$tmp/l2/runner"/runner-* >/dev/null || fail "the runner binary was not copied to l2"
python3 - "$two" 2 <<'PY'
import csv, json, pathlib, sys
run, hosts = pathlib.Path(sys.argv[1]), int(sys.argv[2])
def fail(m): sys.exit(f"test-hosts: FAIL: {m} ({run})")
status = json.loads((run / "status.json").read_text())
if status["state"] != "complete": fail(f"state {status['state']}: {status.get('message')}")
skews = []
for r in csv.DictReader(open(run / "measurements.csv")):
    stem = r["cell_id"].replace("/", "__")
    parts = list(csv.DictReader(open(run / "load-hosts" / f"{stem}.csv")))
    if len(parts) != hosts: fail(f"{len(parts)} hosts in {stem}.csv")
    if sum(int(p["ok"]) for p in parts) != int(r["requests"]): fail(f"ok do not add up in {stem}")
    if sorted(int(p["connections"]) for p in parts) != [int(r["concurrency"]) // 2] * 2: fail(f"connections not split evenly in {stem}")
    skew = max(float(p["window_start_ms"]) for p in parts)
    skews.append(skew)
    # The merged p99 lies within the hosts' p99s (it is the p99 of all their values).
    p99s = [float(p["p99_ms"]) for p in parts]
    if not (min(p99s) - 0.01 <= float(r["latency_p99_ms"]) <= max(p99s) + 0.01): fail(f"merged p99 {r['latency_p99_ms']} outside the hosts' {p99s}")
    # The service is sampled over the 2 s window alone: not the hosts' start
    # lead before it, nor the time their answers take to come back after it.
    span = max(float(s["t_s"]) for s in csv.DictReader(open(run / "samples" / f"{stem}.csv")))
    if span > 2.5: fail(f"samples of {stem} span {span:.2f} s for a 2 s window")
    print(f"  {r['cell_id']:<22} ok {r['requests']:>6} p99 {float(r['latency_p99_ms']):.2f} ms (hosts {p99s}); window skew {skew:.3f} ms; samples span {span:.2f} s")
print(f"  FIGURE window skew between two load hosts: max {max(skews):.3f} ms over {len(skews)} cells")
PY

section "two load hosts over HTTPS (l1, l2)"
# The run's CA travels to the hosts as text; the fixture serves TLS with the
# run's certificate, which names the service's address (10.213.0.1).
PROTOCOL=https write_spec "$tmp/tls.yaml" "4" 2s 1s l1 l2
in_ns ctl timeout 120 "$runner" exec "$tmp/tls.yaml" > "$tmp/tls.out" 2>&1 || { cat "$tmp/tls.out"; fail "runner exec over HTTPS with two load hosts"; }
python3 - "$(newest_run)" <<'PY'
import csv, json, pathlib, sys
run = pathlib.Path(sys.argv[1])
def fail(m): sys.exit(f"test-hosts: FAIL: {m} ({run})")
status = json.loads((run / "status.json").read_text())
if status["state"] != "complete": fail(f"state {status['state']}: {status.get('message')}")
for r in csv.DictReader(open(run / "measurements.csv")):
    stem = r["cell_id"].replace("/", "__")
    parts = list(csv.DictReader(open(run / "load-hosts" / f"{stem}.csv")))
    if len(parts) != 2: fail(f"{len(parts)} hosts in {stem}.csv")
    if r["protocol"] != "https" or not r["tls_version"].startswith("TLS 1."): fail(f"not TLS: {r}")
    if r["tls_verified"] != "true": fail(f"certificate not verified: {r['tls_verified']}")
    # Each host opens its share of the connections, each with a handshake
    # (full, or resumed from an earlier connection's ticket on that host).
    full, resumed = int(r["handshakes_full"]), int(r["handshakes_resumed"])
    if full < 2 or full + resumed < int(r["concurrency"]): fail(f"{full} full and {resumed} resumed handshakes for {r['concurrency']} connections on 2 hosts")
    if int(r["requests"]) <= 0 or sum(int(p["ok"]) for p in parts) != int(r["requests"]): fail(f"ok do not add up in {stem}")
    print(f"  {r['cell_id']:<22} ok {r['requests']:>6} over {r['tls_version']} {r['tls_cipher']}; handshakes {r['handshakes_full']} full, {r['handshakes_resumed']} resumed")
PY

section "the SSH connection killed mid-run"
# No warmups: the one load after the fingerprint is the measurement.
write_spec "$tmp/kill.yaml" "2" 8s 0s l1
in_ns ctl timeout 120 "$runner" exec "$tmp/kill.yaml" > "$tmp/kill.out" 2>&1 &
run_pid=$!
pids+=($run_pid)
remote_of_l1() { # the remote runner: a process of l1's namespace running from our copy
    for pid in $(ip netns pids "${P}l1"); do
        exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
        case "$exe" in "$tmp/l1/runner/runner-"*) echo "$pid"; return ;; esac
    done
}
remote_pid=""
for _ in $(seq 600); do
    kill -0 "$run_pid" 2>/dev/null || break
    # The measurement's session lives for seconds (the fingerprint's does not).
    pid=$(remote_of_l1)
    if [ -n "$pid" ]; then
        sleep 1.5
        [ "$(remote_of_l1)" = "$pid" ] && remote_pid=$pid && break
    fi
    sleep 0.1
done
[ -n "$remote_pid" ] || { cat "$tmp/kill.out"; fail "no long-lived runner remote appeared on l1"; }
# The connection: every ssh of the runner in ctl (the ControlMaster that
# holds the TCP connection and the sessions' clients), by PID.
ssh_pids() {
    for pid in $(ip netns pids "${P}ctl"); do
        exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
        [ "$exe" = "$(readlink -f "$(command -v ssh)")" ] && echo "$pid"
    done
}
ssh_pid=$(ssh_pids | tr '\n' ' ')
[ -n "$ssh_pid" ] || fail "no ssh client found in ctl"
kill -KILL $ssh_pid
echo "  killed ssh (pids $ssh_pid); remote runner was pid $remote_pid"
left=""
for _ in $(seq 100); do
    left=""
    for pid in $(ip netns pids "${P}l1"); do
        case " ${sshd_pids[*]} " in *" $pid "*) ;; *) left="$left $pid" ;; esac
    done
    [ -z "$left" ] && break
    sleep 0.1
done
[ -z "$left" ] || fail "still running on l1 after the SSH connection was killed:$(for p in $left; do echo -n " $p:$(tr '\0' ' ' < /proc/$p/cmdline)"; done)"
echo "  nothing left on l1 but its sshd"
rc=0
wait "$run_pid" || rc=$?
[ "$rc" = 130 ] || { cat "$tmp/kill.out"; fail "runner exec exited $rc after the lost host, want 130 (interrupted)"; }
killed=$(newest_run)
python3 - "$killed" <<'PY'
import json, pathlib, sys
run = pathlib.Path(sys.argv[1])
status = json.loads((run / "status.json").read_text())
msg = status.get("message") or ""
if status["state"] != "interrupted" or "SSH connection" not in msg or "--resume" not in msg:
    sys.exit(f"test-hosts: FAIL: status after a lost host: {status['state']}: {msg}")
print(f"  recorded: {status['state']}: {msg}")
PY
in_ns ctl timeout 120 "$runner" exec "$tmp/kill.yaml" --resume "$killed" > "$tmp/resume.out" 2>&1 || { cat "$tmp/resume.out"; fail "--resume after the lost host"; }
python3 - "$killed" <<'PY'
import csv, json, pathlib, sys
run = pathlib.Path(sys.argv[1])
status = json.loads((run / "status.json").read_text())
rows = list(csv.DictReader(open(run / "measurements.csv")))
if status["state"] != "complete" or len(rows) != 1 or rows[0]["status"] == "failed":
    sys.exit(f"test-hosts: FAIL: resumed run: {status['state']}, {len(rows)} rows")
print(f"  resumed: complete, {rows[0]['requests']} ok")
PY
nothing_but_sshd() { # namespaces...: fails naming what still runs there
    local ns pid
    for ns in "$@"; do
        for pid in $(ip netns pids "$P$ns"); do
            case " ${sshd_pids[*]} " in *" $pid "*) ;; *) fail "pid $pid still runs in $ns: $(tr '\0' ' ' < /proc/$pid/cmdline 2>/dev/null)" ;; esac
        done
    done
}
# The runner's ControlMaster connections end with the run (ControlPersist
# is short and the run ends them); give them a moment.
for _ in $(seq 50); do [ -z "$(ssh_pids)" ] && break; sleep 0.1; done
nothing_but_sshd ctl l1 l2 svc

section "the service on svc over SSH, load on l1 and l2"
# With a connection ramp: the far side's sampler must open when the
# window does, after the ramp (checked by the samples' times).
RAMP=2s write_spec_svc "$tmp/svc.yaml" "2, 4" 2s 1s l1 l2
"$runner" validate "$tmp/svc.yaml"
in_ns ctl timeout 180 "$runner" exec "$tmp/svc.yaml" > "$tmp/svc.out" 2>&1 || { cat "$tmp/svc.out"; fail "runner exec with the service on svc"; }
svc_run=$(newest_run)
ls -d "$tmp/svc/runner/src/py-"* >/dev/null || fail "the sources were not copied to svc"
ls "$tmp/svc/runner/src/py-"*/build/service.py >/dev/null || fail "the build did not run on svc"
[ ! -e "$root/tests/fixtures/exec/build" ] || fail "the remote build wrote into the repository"
python3 - "$svc_run" "$two" <<'PY'
import csv, json, pathlib, sys
run, local = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
def fail(m): sys.exit(f"test-hosts: FAIL: {m} ({run})")
status = json.loads((run / "status.json").read_text())
if status["state"] != "complete": fail(f"state {status['state']}: {status.get('message')}")
# The same run directory as a local-service run with the same load hosts.
def files(d): return sorted(str(p.relative_to(d)).split("/")[0] for p in d.iterdir())
if files(run) != files(local): fail(f"files {files(run)} differ from a local-service run's {files(local)}")
rows = list(csv.DictReader(open(run / "measurements.csv")))
if len(rows) != 2: fail(f"{len(rows)} rows, want 2")
for r in rows:
    if r["status"] == "failed": fail(f"cell {r['cell_id']} failed: {r['reason']}")
    if r["status"] == "suspect": print(f"  {r['cell_id']} suspect: {r['reason']}")
    stem = r["cell_id"].replace("/", "__")
    parts = list(csv.DictReader(open(run / "load-hosts" / f"{stem}.csv")))
    if len(parts) != 2 or sum(int(p["ok"]) for p in parts) != int(r["requests"]): fail(f"load hosts' parts of {stem}")
    samples = list(csv.DictReader(open(run / "samples" / f"{stem}.csv")))
    if len(samples) < 2 or max(int(s["rss_bytes"]) for s in samples) <= 0: fail(f"no samples from the service host for {stem}")
    if not r["service_cpu_s"] or float(r["service_cpu_s"]) <= 0: fail(f"no service CPU for {stem}")
    # Neither the 2 s ramp nor the answers' way back is sampled: the
    # samples span the 2 s window alone.
    last = max(float(s["t_s"]) for s in samples)
    if last > 2.5: fail(f"samples of {stem} span {last:.2f} s for a 2 s window after a 2 s ramp")
    # The host columns are svc's own counters (the load ran on l1, l2).
    if not r["host_idle_share"] or int(r["host_cpus"]) < 1: fail(f"no service host idle share in {stem}")
    if abs(float(r["host_cpus_used"]) - float(r["service_cpu_s"]) / float(r["duration_s"])) > 0.01:
        fail(f"host_cpus_used {r['host_cpus_used']} of {stem} is not the service's CPUs alone")
    print(f"  {r['cell_id']:<22} ok {int(r['requests']):>6} p99 {float(r['latency_p99_ms']):.2f} ms "
          f"service cpu {float(r['service_cpu_s']):.2f} s rss max {int(r['service_rss_max_bytes'])/1e6:.1f} MB, "
          f"svc idle {float(r['host_idle_share']):.0%} (sampled on svc, {last:.2f} s of samples after the ramp)")
report = (run / "report.md").read_text()
if "and the services on root@" not in report: fail("report.md's co-location does not say the services ran on their own host")
env = json.loads((run / "environment.json").read_text())
roles = sorted((h["role"], h["name"]) for h in env.get("hosts", []))
if [r for r, _ in roles] != ["load", "load", "service"]: fail(f"environment.json hosts {roles}")
for h in env["hosts"]:
    if h.get("error") or not h["host"]["kernel"]: fail(f"no fingerprint of {h['name']}: {h.get('error')}")
life = list(csv.DictReader(open(run / "lifecycle.csv")))
if not life or not life[0]["startup_ms"] or life[0]["stop"] != "graceful": fail(f"lifecycle {life}")
log = (run / "logs" / "py.log").read_text()
if "started on the service host" not in log: fail("logs/py.log lacks the service host's start line")
build = (run / "logs" / "build-py.log").read_text()
if "on this host" not in build: fail(f"logs/build-py.log does not show the remote build: {build[:300]}")
print(f"  hosts: {roles}; lifecycle startup {float(life[0]['startup_ms']):.0f} ms, stop {life[0]['stop']}")
PY
"$runner" report "$svc_run" > /dev/null || fail "runner report cannot re-render the remote-service run"
grep -q "unchanged, already on\|copied to" "$svc_run/logs/build-py.log" || fail "no copy line in build-py.log"
nothing_but_sshd svc

section "the SSH connections killed mid-run, service on svc"
write_spec_svc "$tmp/svc-kill.yaml" "2" 8s 0s l1
in_ns ctl timeout 180 "$runner" exec "$tmp/svc-kill.yaml" > "$tmp/svc-kill.out" 2>&1 &
run_pid=$!
pids+=($run_pid)
remote_pid=""
for _ in $(seq 600); do
    kill -0 "$run_pid" 2>/dev/null || break
    pid=$(remote_of_l1)
    if [ -n "$pid" ]; then
        sleep 1.5
        [ "$(remote_of_l1)" = "$pid" ] && remote_pid=$pid && break
    fi
    sleep 0.1
done
[ -n "$remote_pid" ] || { cat "$tmp/svc-kill.out"; fail "the measurement never started on l1"; }
killed=$(newest_run)
# The same runtime as the run before: nothing copied, the build cached there.
grep -q "unchanged, already on" "$killed/logs/build-py.log" || fail "the unchanged sources were copied again"
grep -q "skipped on this host" "$killed/logs/build-py.log" || fail "the unchanged build ran again on svc"
echo "  sources unchanged since the run before (not copied), build cached on svc"
# What the far side reported: "pid P, session S, cgroup C" in logs/py.log.
line=$(grep "started on the service host" "$killed/logs/py.log" | tail -n 1)
svc_pid=$(echo "$line" | sed -n 's/.* pid \([0-9]*\),.*/\1/p')
svc_cgroup=$(echo "$line" | sed -n 's/.*, cgroup \(.*\)$/\1/p')
[ -n "$svc_pid" ] || fail "no service pid in $killed/logs/py.log: $line"
kill -0 "$svc_pid" 2>/dev/null || fail "the service (pid $svc_pid) is not running mid-run"
ssh_pid=$(ssh_pids | tr '\n' ' ')
kill -KILL $ssh_pid
echo "  killed ssh (pids $ssh_pid); the service on svc was pid $svc_pid, cgroup $svc_cgroup"
for _ in $(seq 100); do kill -0 "$svc_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$svc_pid" 2>/dev/null && fail "the service (pid $svc_pid) still runs on svc after the SSH connection was killed"
left=""
for _ in $(seq 100); do
    left=""
    for pid in $(ip netns pids "${P}svc"); do
        case " ${sshd_pids[*]} " in *" $pid "*) ;; *) left="$left $pid" ;; esac
    done
    [ -z "$left" ] && break
    sleep 0.1
done
[ -z "$left" ] || fail "still running on svc after the SSH connection was killed:$(for p in $left; do echo -n " $p:$(tr '\0' ' ' < /proc/$p/cmdline)"; done)"
if [ -n "$svc_cgroup" ] && [ "$svc_cgroup" != none ] && [ -e "$svc_cgroup/cgroup.procs" ]; then
    [ -z "$(cat "$svc_cgroup/cgroup.procs")" ] || fail "the service's cgroup $svc_cgroup is not empty: $(cat "$svc_cgroup/cgroup.procs")"
fi
echo "  nothing left on svc but its sshd (service pid gone, cgroup ${svc_cgroup:-none} empty or removed)"
rc=0
wait "$run_pid" || rc=$?
[ "$rc" = 130 ] || { cat "$tmp/svc-kill.out"; fail "runner exec exited $rc after the lost hosts, want 130 (interrupted)"; }
python3 - "$killed" <<'PY'
import json, pathlib, sys
run = pathlib.Path(sys.argv[1])
status = json.loads((run / "status.json").read_text())
msg = status.get("message") or ""
if status["state"] != "interrupted" or "SSH connection" not in msg or "--resume" not in msg:
    sys.exit(f"test-hosts: FAIL: status after the lost hosts: {status['state']}: {msg}")
print(f"  recorded: {status['state']}: {msg}")
PY
in_ns ctl timeout 180 "$runner" exec "$tmp/svc-kill.yaml" --resume "$killed" > "$tmp/svc-resume.out" 2>&1 || { cat "$tmp/svc-resume.out"; fail "--resume after the lost service host"; }
python3 - "$killed" <<'PY'
import csv, json, pathlib, sys
run = pathlib.Path(sys.argv[1])
status = json.loads((run / "status.json").read_text())
rows = list(csv.DictReader(open(run / "measurements.csv")))
if status["state"] != "complete" or len(rows) != 1 or rows[0]["status"] == "failed":
    sys.exit(f"test-hosts: FAIL: resumed run: {status['state']}, {len(rows)} rows")
print(f"  resumed: complete, {rows[0]['requests']} ok")
PY
for _ in $(seq 50); do [ -z "$(ssh_pids)" ] && break; sleep 0.1; done
nothing_but_sshd ctl l1 l2 svc

section "a training, an auto warmup and the memory phases on svc (the trained file made, hashed and checked there; liveness and memory asked there)"
# The fixture writes "trained" at its graceful stop (WRITE_FILE), `after`
# turns that into the "cache", and a measured start prints its evidence
# line only when the cache exists (EVIDENCE_IF), as a JVM maps its AOT cache.
SERVICE_HOST="$(host_map svc)" START='build: ["mkdir -p build && cp service.py build/service.py"]
    artifact: build/service.py
    start: python3 build/service.py
    train:
      env: { WRITE_FILE: build/app.aotconf }
      duration: 1s
      connections: 2
      after: ["cp build/app.aotconf build/app.aot && echo created the cache"]
      produces: [build/app.aot]
      inputs: [build/service.py]
      evidence: "mapped build/app[.]aot"
      probe: "test -s build/app.aot"' write_spec_on "$tmp/train.yaml" "2" 1s 0s l1
sed -i 's|env: { BIND: "0.0.0.0" }|env: { BIND: "0.0.0.0", EVIDENCE_LINE: "mapped build/app.aot", EVIDENCE_IF: build/app.aot }|' "$tmp/train.yaml"
echo 'memory: { repeats: 1, settle: 200ms, connections: 16, duration: 1s }' >> "$tmp/train.yaml"
# And the cell's warmup by the auto rule (its monitor asks svc whether the service runs).
sed -i 's|^warmup: { service: 0s, cell: 0s }$|warmup: { service: 0s, cell: auto, max: 8s }|' "$tmp/train.yaml"
grep -q "cell: auto" "$tmp/train.yaml" || fail "the training spec has no auto warmup"
"$runner" validate "$tmp/train.yaml"
in_ns ctl timeout 180 "$runner" exec "$tmp/train.yaml" > "$tmp/train.out" 2>&1 || { cat "$tmp/train.out"; fail "runner exec with a training on svc"; }
train_run=$(newest_run)
ls "$tmp/svc/runner/src/py-"*/build/app.aot >/dev/null || fail "the trained file is not on svc"
[ ! -e "$root/tests/fixtures/exec/build" ] || fail "the remote training wrote into the repository"
python3 - "$train_run" "$tmp/svc/runner" <<'PY'
import csv, hashlib, json, pathlib, sys
run, far = pathlib.Path(sys.argv[1]), sys.argv[2]
def fail(m): sys.exit(f"test-hosts: FAIL: {m} ({run})")
status = json.loads((run / "status.json").read_text())
if status["state"] != "complete": fail(f"state {status['state']}: {status.get('message')}")
rec = json.loads((run / "training" / "py.json").read_text())
if rec["driver"]["requests"] <= 0 or rec["driver"]["errors"] != 0: fail(f"training load {rec['driver']}")
[p] = rec["produced"]
if not p["path"].startswith(far) or not p["path"].endswith("/build/app.aot"): fail(f"produced path {p['path']} is not the copy's on svc")
if p["sha256"] != hashlib.sha256(b"trained\n").hexdigest(): fail(f"produced hash {p}")
[i] = rec["inputs"]
if not i["path"].endswith("/build/service.py") or i["bytes"] <= 0: fail(f"inputs {rec['inputs']}")
log = (run / "logs" / "train-py.log").read_text()
for want in ("training py on the service host", "training service stopped (graceful", "created the cache"):
    if want not in log: fail(f"logs/train-py.log lacks {want!r}: {log[-400:]}")
life = [r for r in csv.DictReader(open(run / "lifecycle.csv")) if r["phase"] == "train"]
if len(life) != 1 or life[0]["stop"] != "graceful" or not life[0]["startup_ms"]: fail(f"train lifecycle {life}")
rows = list(csv.DictReader(open(run / "measurements.csv")))
if len(rows) != 1: fail(f"{len(rows)} rows, want 1")
r = rows[0]
if r["status"] == "failed": fail(f"cell failed: {r['reason']}")
# The rule ended it (stable, or its 8 s max) after at least its 5 windows
# of 1 s. No upper bound on warmup_s: past the rule's windows it counts l1's
# session call, connect and start lead (7.1 - 9.1 s measured in all), which
# is the host's speed, not the rule's; a rule that never ended would time
# out the exec above.
if r["warmup_end"] not in ("stable", "max") or float(r["warmup_s"]) < 4.9:
    fail(f"auto warmup on svc ended {r['warmup_end']} after {r['warmup_s']} s")
if "not the one trained" in r["reason"]: fail(f"the unchanged trained file was judged changed: {r['reason']}")
[conf] = list(csv.DictReader(open(run / "configurations.csv")))
if conf["trained"] != "true" or "mapped build/app.aot" not in conf["training_evidence"]:
    fail(f"configurations.csv trained {conf['trained']!r}, evidence {conf['training_evidence']!r}")
[m] = list(csv.DictReader(open(run / "memory-phases.csv")))
if m["status"] != "ok": fail(f"memory phase {m}")
if int(m["processes"]) < 1 or int(m["idle_rss_bytes"]) <= 0 or int(m["after_rss_bytes"]) <= 0 or int(m["requests_ok"]) <= 0:
    fail(f"memory phase readings {m}")
if not m["idle_pss_bytes"]: fail(f"no PSS read on svc: {m}")
print(f"  memory on svc: {m['processes']} process(es), idle rss {int(m['idle_rss_bytes'])/1e6:.1f} MB, "
      f"after {m['requests_ok']} requests at {m['connections']} connections {int(m['after_rss_bytes'])/1e6:.1f} MB")
print(f"  trained on svc: {rec['driver']['requests']} requests in {rec['driver']['duration_s']:.1f} s, "
      f"startup {float(life[0]['startup_ms']):.0f} ms; produced {p['path'][len(far):]} {p['bytes']} B; "
      f"cell {r['status']} after an auto warmup ({r['warmup_end']}, {float(r['warmup_s']):.1f} s), evidence {conf['training_evidence']!r}")
PY
nothing_but_sshd svc

section "dependencies on svc: PostgreSQL and a stats stub beside the CRUD service there"
fx=$root/tests/fixtures/exec
cat > "$tmp/deps.yaml" <<EOF
experiment: { name: hosts-deps, title: dependencies on the service host, description: scripts/test-hosts.sh }
dependencies:
  db:
    kind: postgres
    dir: $fx
    postgres:
      schema: [$fx/sql/schema.sql, $fx/sql/seed.sql]
      settings: { max_connections: 20 }
    reset: { when: repeat }
  audit:
    dir: $fx
    start: python3 stats_dependency.py
    health: { path: /health, timeout: 20s, interval: 50ms }
    stats: /__stats
runtimes:
  crud:
    dir: $fx
    start: python3 crud_service.py
    needs: [db, audit]
    env:
      DATABASE_URL: "{{ deps.db.url }}"
      AUDIT_URL: "http://{{ deps.audit.host }}:{{ deps.audit.port }}"
      BIND: "0.0.0.0"
    health: { path: /health, timeout: 20s, interval: 50ms }
    stop: { signal: TERM, grace: 3s }
workload:
  - { name: read, path: "/items/{{ rand(1, 100) }}", weight: 70 }
  - { name: create, method: POST, path: /items, body: "new {{ seq }}", expect: { status: 201 }, weight: 30 }
axes: { concurrency: [2] }
load: { mode: closed, timeout: 2s }
repeats: 2
startup: { repeats: 1, first_requests: 5 }
warmup: { service: 0s, cell: 1s }
measure: { duration: 2s }
results: $tmp/results
hosts:
  service: $(host_map svc)
  load:
$(host_yaml l1)
EOF
"$runner" validate "$tmp/deps.yaml"
in_ns ctl timeout 240 "$runner" exec "$tmp/deps.yaml" > "$tmp/deps.out" 2>&1 || { cat "$tmp/deps.out"; fail "runner exec with dependencies on svc"; }
deps_run=$(find "$tmp/results/hosts-deps" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
python3 - "$deps_run" <<'PY'
import csv, json, pathlib, sys
run = pathlib.Path(sys.argv[1])
def fail(m): sys.exit(f"test-hosts: FAIL: {m} ({run})")
status = json.loads((run / "status.json").read_text())
if status["state"] != "complete": fail(f"state {status['state']}: {status.get('message')}")
rows = list(csv.DictReader(open(run / "measurements.csv")))
if len(rows) != 2: fail(f"{len(rows)} rows, want 2 (two repeats)")
for r in rows:
    if r["status"] == "failed" or int(r["requests"]) <= 0: fail(f"cell {r['cell_id']}: {r['status']} {r['reason']}")
usage = list(csv.DictReader(open(run / "dependency-usage.csv")))
got = sorted((u["cell_id"], u["dependency"]) for u in usage)
want = sorted((r["cell_id"], d) for r in rows for d in ["audit", "db"])
if got != want: fail(f"dependency-usage.csv rows {got}, want {want}")
for u in usage:
    if not u["cpu_seconds"] or float(u["cpu_seconds"]) <= 0 or int(u["rss_max_bytes"] or 0) <= 0:
        fail(f"no CPU or RSS sampled on svc for {u['dependency']} in {u['cell_id']}")
stats = list(csv.DictReader(open(run / "dependency-stats.csv")))
if not stats or any(s["dependency"] != "audit" or int(s["count"]) <= 0 for s in stats): fail(f"dependency-stats.csv {stats}")
# The cold start and the measured start, each with its first 5 requests
# timed from here (the dependencies were up before the cold start).
life = list(csv.DictReader(open(run / "lifecycle.csv")))
starts = sorted((l["phase"], l["start_index"]) for l in life)
if "startup" not in [p for p, _ in starts] or any(not l["first_request_ms"] for l in life): fail(f"lifecycle {life}")
first = list(csv.DictReader(open(run / "first-requests.csv")))
want = sorted((p, i, str(k)) for p, i in starts for k in range(1, 6))
if sorted((f["phase"], f["start_index"], f["request"]) for f in first) != want: fail(f"first-requests.csv {first}, want {want}")
print(f"  first requests (ms, from ctl): " + "; ".join(f"{p} {i}: " + "/".join(f["latency_ms"] for f in first if (f["phase"], f["start_index"]) == (p, i)) for p, i in starts))
events = (run / "logs" / "dependency-db.log").read_text()
for part in ["started there", "database system is ready"]:
    if part not in events: fail(f"logs/dependency-db.log lacks {part!r}")
for u in usage:
    print(f"  {u['cell_id']:<26} {u['dependency']:<6} cpu {float(u['cpu_seconds']):.2f} s rss max {int(u['rss_max_bytes'])/1e6:.1f} MB (sampled on svc)")
print(f"  audit stats: {[(s['route'], s['count']) for s in stats]}; every row ok: {[r['requests'] for r in rows]} requests")
PY
grep -q "dependency db reset" "$tmp/deps.out" || { cat "$tmp/deps.out"; fail "db was not reset on svc between the repeats"; }
for _ in $(seq 50); do [ -z "$(ssh_pids)" ] && break; sleep 0.1; done
nothing_but_sshd ctl l1 l2 svc
# This run's folders (runner-<experiment>-<service>-<port>): svc shares /tmp
# with this host, where another experiment's run may hold its own, e.g. CI's
# microservices study in the lane beside this one.
left=$(ls -d /tmp/runner-hosts-deps-dep-db-* /tmp/runner-hosts-deps-dep-audit-* 2>/dev/null || true)
[ -z "$left" ] || fail "dependency scratch folders left on svc: $left"
echo "  nothing left on svc but its sshd: PostgreSQL and the stub stopped, their scratch folders removed"
if [ "${1:-}" = --figures ]; then
    section "figures: one cell of the seed matrix (Go net/http, payload 128, 48 connections), load local vs on l1"
    (cd "$root/runtimes/go-nethttp" && go build -trimpath -o build/server ./cmd/server)
    go_spec() { # file, hosts block, extra runtime lines (a build for the service host), extra env
        cat > "$1" <<EOF
experiment: { name: hosts-figures, title: load local vs remote, description: scripts/test-hosts.sh --figures }
env: { WORK_FACTOR: "10", LOG_REQUESTS: "false" }
runtimes:
  go-stdlib:
    dir: $root/runtimes/go-nethttp
    start: ./build/server
    env: { GOMAXPROCS: "{{ host.cpus }}", GOMEMLIMIT: "off", HOST: "0.0.0.0"${4:-} }
    health: { path: /health, timeout: 60s }
${3:-}
workload: { method: GET, path: "/api/generated/{{ payload }}", expect: { status: 200 } }
axes: { payload: [128], concurrency: [48] }
load: { mode: closed, timeout: 10s }
repeats: 3
startup: { repeats: 0 }
warmup: { service: 3s, cell: 2s }
measure: { duration: 5s }
results: $tmp/figures
$2
EOF
    }
    go_spec "$tmp/go-local.yaml" ""
    go_spec "$tmp/go-remote.yaml" "hosts:
  service: { address: $NET.1 }
  load:
$(host_yaml l1)"
    # The service on svc: built there from the copied sources (go on the
    # session's PATH, the module cache shared through the filesystem).
    go_spec "$tmp/go-svc.yaml" "hosts:
  service: $(host_map svc)" '    build: ["go build -trimpath -o build/server ./cmd/server"]
    artifact: build/server' ", PATH: \"$(dirname "$(command -v go)"):/usr/local/bin:/usr/bin:/bin\", HOME: \"$HOME\""
    in_ns ctl timeout 300 "$runner" exec "$tmp/go-local.yaml" > "$tmp/go-local.out" 2>&1 || { cat "$tmp/go-local.out"; fail "go local"; }
    local_run=$(find "$tmp/figures/hosts-figures" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
    in_ns ctl timeout 300 "$runner" exec "$tmp/go-remote.yaml" > "$tmp/go-remote.out" 2>&1 || { cat "$tmp/go-remote.out"; fail "go remote"; }
    remote_run=$(find "$tmp/figures/hosts-figures" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
    in_ns ctl timeout 300 "$runner" exec "$tmp/go-svc.yaml" > "$tmp/go-svc.out" 2>&1 || { cat "$tmp/go-svc.out"; fail "go with the service on svc"; }
    svc_run=$(find "$tmp/figures/hosts-figures" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
    python3 - "$local_run" "$remote_run" "$svc_run" <<'PY'
import csv, json, pathlib, statistics, sys
for label, run in [("local, service local", sys.argv[1]), ("on l1, service local", sys.argv[2]), ("local, service on svc", sys.argv[3])]:
    run = pathlib.Path(run)
    rows = list(csv.DictReader(open(run / "measurements.csv")))
    tput = [float(r["throughput_rps"]) for r in rows]
    p99 = [float(r["latency_p99_ms"]) for r in rows]
    st = [r["status"] for r in rows]
    print(f"  FIGURE load {label}: throughput {statistics.mean(tput):8.0f} rps (repeats {', '.join(f'{t:.0f}' for t in tput)}), "
          f"p99 {statistics.mean(p99):6.2f} ms (repeats {', '.join(f'{p:.2f}' for p in p99)}); status {', '.join(st)}")
    hosts_dir = run / "load-hosts"
    parts = [p for f in sorted(hosts_dir.glob("*.csv")) for p in csv.DictReader(open(f))] if hosts_dir.exists() else []
    if parts:
        opens = [float(p["session_open_ms"]) for p in parts]
        rtts = [float(p["rtt_ms"]) for p in parts]
        print(f"  FIGURE SSH path: session open {statistics.median(opens):.0f} ms median per load "
              f"(range {min(opens):.0f}-{max(opens):.0f}), protocol ping RTT {statistics.median(rtts):.3f} ms median")
        env = json.loads((run / "environment.json").read_text())
        for h in env.get("hosts", []):
            print(f"  FIGURE first session to {h['name']} (binary copy included): {h['session_open_ms']:.0f} ms; rtt {h['rtt_ms']:.3f} ms")
PY
    # One `ssh l1 true` with its own connection, and over a shared master.
    section "figures: one ssh session, its own connection vs over a ControlMaster"
    in_ns ctl bash -c '
        o=(-o BatchMode=yes -p 2222 -i "$1/id" -o UserKnownHostsFile="$1/known_hosts" -o StrictHostKeyChecking=yes)
        cm=(-o ControlMaster=auto -o ControlPath="$1/cm-%C" -o ControlPersist=15)
        t() { local s=$(date +%s%N); ssh "${o[@]}" "$@" root@'"$NET"'.11 true; echo $(( ($(date +%s%N) - s) / 1000000 )); }
        plain=$(for i in 1 2 3 4 5 6; do t; done | tr "\n" " ")
        t "${cm[@]}" > /dev/null # opens the master
        shared=$(for i in 1 2 3 4 5 6; do t "${cm[@]}"; done | tr "\n" " ")
        ssh "${o[@]}" "${cm[@]}" -O exit root@'"$NET"'.11 2>/dev/null
        echo "  FIGURE ssh true (ms): own connection: $plain; over a ControlMaster: $shared"
    ' _ "$tmp"
    # What the SSH path costs per load, this build against $RUNNER_BEFORE
    # (a build from before the sessions were shared), on the same spec.
    if [ -n "${RUNNER_BEFORE:-}" ]; then
        section "figures: SSH cost per load, before ($RUNNER_BEFORE) and after ($runner)"
        write_spec "$tmp/cost.yaml" "1, 2, 3, 4" 1s 1s l1
        for label in before after; do
            bin=$runner; [ "$label" = before ] && bin=$RUNNER_BEFORE
            # Each binary's first run copies it to l1; the second is measured.
            in_ns ctl timeout 300 "$bin" exec "$tmp/cost.yaml" --only concurrency=1 > "$tmp/cost-$label.out" 2>&1 || { cat "$tmp/cost-$label.out"; fail "cost run ($label)"; }
            t0=$(date +%s%N)
            in_ns ctl timeout 300 "$bin" exec "$tmp/cost.yaml" > "$tmp/cost-$label.out" 2>&1 || { cat "$tmp/cost-$label.out"; fail "cost run ($label)"; }
            t1=$(date +%s%N)
            python3 - "$(newest_run)" "$label" "$(( (t1 - t0) / 1000000 ))" <<'PY'
import csv, pathlib, statistics, sys
run, label, wall_ms = pathlib.Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
opens = [float(p["session_open_ms"]) for f in sorted((run / "load-hosts").glob("*.csv")) for p in csv.DictReader(open(f))]
cells = len(opens)
print(f"  FIGURE SSH {label}: session open per measured load median {statistics.median(opens):.0f} ms "
      f"(range {min(opens):.0f}-{max(opens):.0f}, {cells} cells); whole run {wall_ms / 1000:.1f} s for {cells} cells of 1 s + 1 s warmup")
PY
        done
    fi
fi
echo "test-hosts: OK (${SECONDS} s)"
