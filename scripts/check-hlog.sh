#!/usr/bin/env bash
# Checks a fresh run's histograms/<cell>.hlog with the reference reader,
# Java's HdrHistogram HistogramLogProcessor (org.hdrhistogram:HdrHistogram
# 2.2.2 from Maven Central), given no `-tag`: the latency must be the log's
# untagged main histogram (docs/run-directory.md), and its count, p50, p90,
# p99, p99.9 and max must equal the cell's row of measurements.csv. The
# service time is read with `-tag service_time` and its p50 and p99 checked
# against service_p50_ms and service_p99_ms. A committed run's old log
# (latency tagged `latency`) is read with `-tag latency` to show those stay
# readable.
#
#   scripts/check-hlog.sh       # about 20 s here, once the jar is in ~/.m2
# RUNNER picks the binary (default target/release/runner, built when missing).
# Needs java and mvn (Maven fetches the jar into ~/.m2 once).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runner=${RUNNER:-$root/target/release/runner}
fail() { echo "check-hlog: $*" >&2; exit 1; }
. scripts/lib/smoke.sh
smoke_build

version=2.2.2
jar=${M2_REPO:-$HOME/.m2/repository}/org/hdrhistogram/HdrHistogram/$version/HdrHistogram-$version.jar
if [ ! -f "$jar" ]; then
  mvn -B -q dependency:get -Dartifact=org.hdrhistogram:HdrHistogram:$version
fi
[ -f "$jar" ] || fail "no $jar after mvn dependency:get"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/hlog.yaml" <<YAML
experiment:
  name: check-hlog
  title: A fresh run whose hlogs the reference reader checks
runtimes:
  fixture:
    dir: $root/tests/fixtures/exec
    start: python3 service.py
    health: { path: /health, timeout: 20s, interval: 50ms }
workload:
  method: GET
  path: /work/64
  expect: { status: 200 }
axes:
  concurrency: [2, 4]
load: { mode: closed, timeout: 5s }
repeats: 1
warmup: { service: 200ms, cell: 200ms }
measure: { duration: 1s }
results: $work/results
YAML

smoke_run "$work/hlog.yaml"
[ "$rc" -le 1 ] || fail "runner exec exited $rc"

# process TAG HLOG OUT: HistogramLogProcessor's interval CSV of HLOG (TAG
# empty: no -tag), values in milliseconds (the log holds microseconds).
process() {
  local tag=$1 hlog=$2 out=$3
  local args=(-i "$hlog" -csv -outputValueUnitRatio 1000 -o "$out")
  [ -z "$tag" ] || args+=(-tag "$tag")
  java -cp "$jar" org.HdrHistogram.HistogramLogProcessor "${args[@]}" \
    || fail "HistogramLogProcessor ${args[*]} failed"
}

for hlog in "$run"/histograms/*.hlog; do
  stem=$(basename "$hlog" .hlog)
  process "" "$hlog" "$work/$stem.latency"
  process service_time "$hlog" "$work/$stem.service"
done

# A committed run's log (git ls-files: never a run recorded in this work
# tree since); sed reads all its input, so no SIGPIPE under pipefail.
old=$(git ls-files 'results/*/histograms/*.hlog' | sort | sed -n 1p)
[ -n "$old" ] || fail "no committed run's hlog under results/"
process latency "$old" "$work/old.latency"

python3 - "$run" "$work" "$old" <<'PY'
import csv, pathlib, sys

run, work, old = (pathlib.Path(a) for a in sys.argv[1:])
problems, checked = [], 0

def last_interval(path):
    """The processor's last CSV line: the totals over the whole log."""
    lines = [l for l in path.read_text().splitlines() if l and not l.startswith("#")]
    if len(lines) < 2:
        return None
    return dict(zip(csv.reader([lines[0]]).__next__(), csv.reader([lines[-1]]).__next__()))

def same(what, got, want):
    if abs(float(got) - float(want)) > 0.0005:
        problems.append(f"{what}: HistogramLogProcessor {got}, measurements.csv {want}")

def check(rows, hlog_dir, out_dir, name_of):
    global checked
    for row in rows:
        stem = row["cell_id"].replace("/", "__")
        if not (hlog_dir / f"{stem}.hlog").exists():
            continue
        lat = last_interval(out_dir / name_of(stem, "latency"))
        if lat is None:
            problems.append(f"{stem}: no untagged latency interval read")
            continue
        same(f"{stem} count", lat["Total_Count"], row["requests"])
        for col, key in [("latency_p50_ms", "Total_50%"), ("latency_p90_ms", "Total_90%"),
                         ("latency_p99_ms", "Total_99%"), ("latency_p999_ms", "Total_99.9%"),
                         ("latency_max_ms", "Total_Max")]:
            same(f"{stem} {col}", lat[key], row[col])
        checked += 1
        svc_name = name_of(stem, "service")
        if svc_name is not None:
            svc = last_interval(out_dir / svc_name)
            if svc is None:
                problems.append(f"{stem}: no `service_time` interval read")
                continue
            same(f"{stem} service_p50_ms", svc["Total_50%"], row["service_p50_ms"])
            same(f"{stem} service_p99_ms", svc["Total_99%"], row["service_p99_ms"])

rows = list(csv.DictReader(open(run / "measurements.csv")))
if not rows:
    problems.append(f"{run}/measurements.csv has no rows")
check(rows, run / "histograms", work, lambda stem, kind: f"{stem}.{kind}")
fresh = checked
if fresh != len(rows):
    problems.append(f"{fresh} of {len(rows)} cells checked (an hlog missing?)")

old_stem = old.stem
old_rows = [r for r in csv.DictReader(open(old.parent.parent / "measurements.csv"))
            if r["cell_id"].replace("/", "__") == old_stem]
check(old_rows, old.parent, work,
      lambda stem, kind: "old.latency" if kind == "latency" else None)
if checked != fresh + 1:
    problems.append(f"{old}: its measurements.csv row not found or not checked")

if problems:
    print("check-hlog: " + "\n  ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"check-hlog: {fresh} fresh cells (untagged latency, tagged service time) and "
      f"{old} (tagged latency) match measurements.csv")
PY
