#!/usr/bin/env bash
# End-to-end proof of profiling (called by .ci/run after ci-e2e.sh):
# `runner exec --quick experiments/profiles.yaml` on the Go and JVM
# services must write, for the profiled cell of each, a GC log, a JFR
# recording, an async-profiler flame graph and a Go pprof flame graph, link
# them from report.md and report.html, keep the profiled repeats out of the
# headline statistics, and carry GC pause figures for JVM and Go cells in
# measurements.csv. `runner report` must re-render the links.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. scripts/jdk25.sh
runner=${RUNNER:-$root/target/release/runner}
results=$root/results/profiles

fail() { echo "ci-profile: $*" >&2; exit 1; }

echo "== runner exec --quick experiments/profiles.yaml"
before=$( (find "$results" -mindepth 1 -maxdepth 1 -type d 2>/dev/null || true) | sort | tail -n 1)
"$runner" exec --quick=10 experiments/profiles.yaml
run=$(find "$results" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
[ -n "$run" ] && [ "$run" != "$before" ] || fail "no new run directory under $results"
echo "run directory: $run"

check() {
python3 - "$run" <<'PY'
import csv, html as entities, sys, pathlib
run = pathlib.Path(sys.argv[1])
def fail(msg):
    sys.exit(f"ci-profile: {msg} ({run})")
rows = list(csv.DictReader(open(run / "measurements.csv")))
arts = list(csv.DictReader(open(run / "profiles.csv")))
md = (run / "report.md").read_text()
html = entities.unescape((run / "report.html").read_text())
def ok(runtime, collector, kind):
    for a in arts:
        if a["runtime"] == runtime and a["collector"] == collector and a["kind"] == kind:
            if a["state"] != "ok":
                fail(f"{runtime} {collector} {kind}: {a['state']}: {a['note']}")
            f = run / a["file"]
            if not f.is_file() or f.stat().st_size == 0:
                fail(f"{a['file']} missing or empty")
            return a["file"]
    fail(f"no {collector} {kind} for {runtime}: {arts}")
links = [ok("jdk-jvm", "jfr", "raw"), ok("jdk-jvm", "async_cpu", "flame_graph"),
         ok("jdk-jvm", "async_alloc", "flame_graph"), ok("go-stdlib", "pprof_cpu", "flame_graph"),
         ok("go-stdlib", "pprof_heap", "flame_graph")]
gc_logs = list((run / "profiles" / "gc").glob("jdk-jvm-start*.log"))
if not gc_logs or not any("Pause" in p.read_text() for p in gc_logs):
    fail("no JVM GC log with a pause under profiles/gc/")
for f in links + [str(p.relative_to(run)) for p in gc_logs]:
    if f"]({f})" not in md or f'href="{f}"' not in html:
        fail(f"the reports do not link {f}")
profiled = [r for r in rows if r["profiled"] == "true"]
if sorted(r["runtime"] for r in profiled) != ["go-stdlib", "jdk-jvm"]:
    fail(f"want one profiled row per runtime, got {[r['cell_id'] for r in profiled]}")
for runtime in ["go-stdlib", "jdk-jvm"]:
    if not any(r["runtime"] == runtime and r["gc_pauses"] not in ("", None) for r in rows):
        fail(f"no GC pause figures for {runtime} in measurements.csv")
summary = list(csv.DictReader(open(run / "summary-by-cell.csv")))
if any(int(s["repeats"]) != 1 for s in summary):
    fail(f"a profiled repeat entered the statistics: {summary}")
print(f"ci-profile: {len(arts)} artifacts, {len(gc_logs)} GC logs, {len(rows)} rows; reports link them")
PY
}
check
echo "== runner report (re-render the links from the run directory alone)"
rm "$run/report.md" "$run/report.html"
"$runner" report "$run" >/dev/null
check
echo "ci-profile: passed"
