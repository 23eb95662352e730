#!/usr/bin/env bash
# What a CI shows, read by the real consumers of each format:
#   - `runner compare --junit` and `runner history --junit`: Python's
#     junitparser reads the files, with the failures and skips the verdicts
#     give (the fixture runs quiet-a -> quiet-regressed: 36 tests, 2 failures,
#     3 skipped; a committed reference run against itself: as many skips as
#     its JSON has inconclusive tests, no failure);
#   - `$GITHUB_STEP_SUMMARY`: appended to, after what was there;
#   - `runner export`: the BMF and github-action-benchmark files validate
#     (jsonschema) against docs/schemas/, written from those tools'
#     documented formats; benchstat (golang.org/x/perf, pinned) reads two
#     runs' benchstat files without a complaint; prometheus_client's
#     OpenMetrics parser reads the openmetrics file.
# Everything is written under a temporary directory (the committed runs are
# copied there); the repository's results/ is only read.
#
#   scripts/check-ci-outputs.sh      # about 10 s here once benchstat is built
# RUNNER picks the binary (default target/release/runner, built when missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runner=${RUNNER:-$root/target/release/runner}
fail() { echo "check-ci-outputs: $*" >&2; exit 1; }
. scripts/lib/smoke.sh
smoke_build

# The consumers come from PyPI through scripts/install-deps.sh (the one
# place that installs what the checks need).
for module in junitparser prometheus_client jsonschema; do
  python3 -c "import $module" 2>/dev/null ||
    fail "Python's $module is missing: run 'sudo scripts/install-deps.sh'"
done
benchstat_version=v0.0.0-20260908200009-22c9c6c9d4da
gobin=${XDG_CACHE_HOME:-$HOME/.cache}/runner-ci/benchstat-$benchstat_version
if ! [ -x "$gobin/benchstat" ]; then
  GOBIN=$gobin go install "golang.org/x/perf/cmd/benchstat@$benchstat_version"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
reference=results/2026-repeats/20261201T105635Z
mkdir -p "$work/experiment"
cp -r "$reference" "$work/experiment/"
run=$work/experiment/$(basename "$reference")
cp -r tests/fixtures/runs/quiet-a tests/fixtures/runs/quiet-regressed "$work/"

summary=$work/step-summary.md
echo "## an earlier step" > "$summary"
export GITHUB_STEP_SUMMARY=$summary

# compare: exit 1 (a regression) and 0/3 (none; could not tell) are verdicts.
set +e
"$runner" compare --run-noise 0% --latency-run-noise 0% "$work/quiet-a" "$work/quiet-regressed" \
  --junit "$work/fixture.xml" > "$work/fixture.md"
rc=$?
"$runner" compare "$run" "$run" --junit "$work/reference.xml" > /dev/null
rc_ref=$?
"$runner" compare "$run" "$run" --format json > "$work/reference.json" 2> /dev/null
"$runner" history "$work/experiment" --out "$work/history" --junit "$work/history.xml" --format json \
  > "$work/history.json" 2> /dev/null
rc_history=$?
set -e
[ "$rc" = 1 ] || fail "compare quiet-a quiet-regressed exited $rc, not 1 (a regression)"
[ "$rc_ref" = 0 ] || [ "$rc_ref" = 3 ] || fail "compare of the reference run with itself exited $rc_ref"
[ "$rc_history" = 0 ] || fail "history of one reference run exited $rc_history"

python3 - "$work" <<'PY'
import json, sys
from pathlib import Path
from junitparser import Failure, JUnitXml, Skipped

work = Path(sys.argv[1])

def counts(name):
    xml = JUnitXml.fromfile(str(work / name))
    suites = list(xml)
    cases = [case for suite in suites for case in suite]
    failures = sum(1 for c in cases if any(isinstance(r, Failure) for r in c.result))
    skipped = sum(1 for c in cases if any(isinstance(r, Skipped) for r in c.result))
    for c in cases:
        for r in c.result:
            if not (r.message or "").strip():
                sys.exit(f"check-ci-outputs: {name}: {c.name}: a {type(r).__name__} without a message")
    declared = (suites[0].tests, suites[0].failures, suites[0].skipped)
    if declared != (len(cases), failures, skipped):
        sys.exit(f"check-ci-outputs: {name}: the suite says {declared}, its cases {len(cases), failures, skipped}")
    return len(cases), failures, skipped

got = counts("fixture.xml")
if got != (36, 2, 3):
    sys.exit(f"check-ci-outputs: fixture.xml: (tests, failures, skipped) {got}, not (36, 2, 3)")

reference = json.loads((work / "reference.json").read_text())
verdicts = [c[m]["verdict"] for c in reference["cells"] for m in ("throughput", "p99")]
judged = [v for v in verdicts if v != "not-judged"]
want = (len(judged), 0, sum(v in ("inconclusive", "insufficient") for v in judged))
got = counts("reference.xml")
if got != want:
    sys.exit(f"check-ci-outputs: reference.xml: {got}, its JSON says {want}")

history = json.loads((work / "history.json").read_text())
series = history["series"]
want = (len(series), history["regressions"],
        sum(s["newest"]["verdict"] in ("inconclusive", "not-measured", "no-baseline") for s in series))
got = counts("history.xml")
if got != want:
    sys.exit(f"check-ci-outputs: history.xml: {got}, its JSON says {want}")

summary = (work / "step-summary.md").read_text()
fixture_md = (work / "fixture.md").read_text()
if not summary.startswith("## an earlier step\n\n" + fixture_md):
    sys.exit("check-ci-outputs: the step summary does not start with the earlier step, then compare's Markdown")
for part in ("# Comparison: ", "# History: 2026-repeats"):
    if part not in summary:
        sys.exit(f"check-ci-outputs: the step summary lacks {part!r}")
print(f"check-ci-outputs: JUnit read by junitparser: fixture {counts('fixture.xml')}, "
      f"reference {counts('reference.xml')}, history {counts('history.xml')}; step summary appended")
PY

for format in bmf github-action-benchmark-bigger github-action-benchmark-smaller benchstat openmetrics; do
  "$runner" export --format "$format" "$run" --output "$work/export.$format"
done
"$runner" export --format benchstat "$work/quiet-a" --output "$work/quiet-a.benchstat"
"$runner" export --format benchstat "$work/quiet-regressed" --output "$work/quiet-regressed.benchstat"

python3 - "$work" "$root/docs/schemas" <<'PY'
import json, math, sys
from pathlib import Path
import jsonschema
from prometheus_client.openmetrics.parser import text_string_to_metric_families

work, schemas = Path(sys.argv[1]), Path(sys.argv[2])
configs = len(json.loads((work / "reference.json").read_text())["cells"])

def validate(file, schema):
    doc = json.loads((work / file).read_text())
    jsonschema.Draft7Validator(json.loads((schemas / schema).read_text())).validate(doc)
    return doc

bmf = validate("export.bmf", "bmf.schema.json")
for bench, measures in bmf.items():
    for slug, m in measures.items():
        if "lower_value" in m and not m["lower_value"] <= m["value"] <= m["upper_value"]:
            sys.exit(f"check-ci-outputs: bmf {bench} {slug}: value outside [lower_value, upper_value]")
if len(bmf) != configs:
    sys.exit(f"check-ci-outputs: bmf has {len(bmf)} benchmarks, the run {configs} configurations")
for direction, unit, per_config in (("bigger", "req/s", 1), ("smaller", "ms", 2)):
    doc = validate(f"export.github-action-benchmark-{direction}", "github-action-benchmark.schema.json")
    names = [e["name"] for e in doc]
    if len(set(names)) != len(names) or len(names) != per_config * configs:
        sys.exit(f"check-ci-outputs: github-action-benchmark-{direction}: {len(names)} entries "
                 f"({len(set(names))} names) for {configs} configurations")
    if {e["unit"] for e in doc} != {unit}:
        sys.exit(f"check-ci-outputs: github-action-benchmark-{direction}: units {set(e['unit'] for e in doc)}")

families = list(text_string_to_metric_families((work / "export.openmetrics").read_text()))
for f in families:
    if f.type != "gauge" or len(f.samples) != configs:
        sys.exit(f"check-ci-outputs: openmetrics {f.name}: {f.type}, {len(f.samples)} samples for {configs} configurations")
    if any(not math.isfinite(s.value) or "runtime" not in s.labels for s in f.samples):
        sys.exit(f"check-ci-outputs: openmetrics {f.name}: a sample without a value or a runtime label")
print(f"check-ci-outputs: BMF and github-action-benchmark valid against docs/schemas/; "
      f"OpenMetrics read by prometheus_client: {len(families)} families x {configs} samples")
PY

"$gobin/benchstat" "$work/quiet-a.benchstat" "$work/quiet-regressed.benchstat" \
  > "$work/benchstat.out" 2> "$work/benchstat.err" || fail "benchstat failed: $(cat "$work/benchstat.err")"
[ ! -s "$work/benchstat.err" ] || fail "benchstat complained: $(cat "$work/benchstat.err")"
"$gobin/benchstat" "$work/export.benchstat" > /dev/null 2> "$work/benchstat.err" ||
  fail "benchstat failed on the reference run: $(cat "$work/benchstat.err")"
[ ! -s "$work/benchstat.err" ] || fail "benchstat complained: $(cat "$work/benchstat.err")"
# The injected 20% regression shows as benchstat's own significant change.
grep -E '^Go-java-go-2026/runtime=go-stdlib/payload=8192/concurrency=12 .*-2[0-9]\.[0-9]+% \(p=' \
  "$work/benchstat.out" > /dev/null ||
  fail "benchstat does not show the regressed configuration's -20%: $(grep 8192/concurrency=12 "$work/benchstat.out")"
echo "check-ci-outputs: benchstat $benchstat_version read both runs; it sees the injected -20% too"
