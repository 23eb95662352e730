#!/usr/bin/env bash
# Runs the CI examples of docs/guides/ci.md the way their CI would, on
# 127.0.0.1, so that they cannot rot:
#   - docs/guides/github-actions.yml: every `run:` step of its job in order,
#     with the job's `env:` and bash -eo pipefail (GitHub's shell), in a
#     fresh copy of the workspace for each of two "nights" that share only
#     the results store (RUNNER_STORE); then the files its `uses:` steps
#     read (the JUnit reports, the github-action-benchmark inputs, the
#     artifact) must exist, the JUnit files parse, and $GITHUB_STEP_SUMMARY
#     must hold the comparison and the history;
#   - docs/guides/Jenkinsfile: every `sh` step in order with the pipeline's
#     `environment` and sh -e (Jenkins' shell), then the files `junit` and
#     `archiveArtifacts` collect must exist.
# The build step (the stage `Build`, the step `id: build`) is left out:
# RUNNER points at the binary to test. Each night runs docs/guides/specs/
# ci.yaml: one Python service, about 20 s.
#
#   scripts/test-ci-guides.sh      # about 1 min here
# RUNNER picks the binary (default target/release/runner, built when missing).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runner=${RUNNER:-$root/target/release/runner}
fail() { echo "test-ci-guides: $*" >&2; exit 1; }
. scripts/lib/smoke.sh
smoke_build
case $runner in /*) ;; *) runner=$root/$runner ;; esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
store="sqlite:$work/store/results.db"
mkdir -p "$work/store"

# A clean checkout of what the examples use: the tiny spec and its service.
checkout() {
  rm -rf "$1"
  mkdir -p "$1/docs/guides/specs"
  cp docs/guides/specs/ci.yaml docs/guides/specs/ci-hello.py "$1/docs/guides/specs/"
}

# Extracts the steps of $1 (github | jenkins) into $work/steps-$1/NN.sh, the
# environment into env.sh, and the files the non-shell steps read into
# collected.txt (one glob a line).
python3 - "$work" docs/guides/github-actions.yml docs/guides/Jenkinsfile <<'PY'
import re, shlex, sys, textwrap
from pathlib import Path
import yaml

work, workflow, jenkinsfile = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])

def write(kind, env, steps, collected):
    out = work / f"steps-{kind}"
    out.mkdir()
    (out / "env.sh").write_text("".join(f"export {k}={shlex.quote(str(v))}\n" for k, v in env.items()))
    for i, (name, script) in enumerate(steps):
        (out / f"{i:02d}.sh").write_text(f"# {name}\n{script}\n")
    (out / "collected.txt").write_text("".join(f"{c}\n" for c in collected))
    print(f"test-ci-guides: {kind}: {len(steps)} shell steps, {len(collected)} collected paths")

doc = yaml.safe_load(workflow.read_text())
(job,) = doc["jobs"].values()
steps, collected = [], []
for step in job["steps"]:
    if "run" in step:
        if step.get("id") != "build":
            steps.append((step.get("name", ""), step["run"]))
    else:
        with_ = step.get("with", {})
        for key in ("report_paths", "output-file-path", "path"):
            if key in with_:
                collected.append(with_[key])
if any("${{" in s for _, s in steps):
    sys.exit("test-ci-guides: a run step uses a ${{ }} expression, which only GitHub can evaluate")
write("github", job["env"], steps, collected)

text = jenkinsfile.read_text()
env = dict(re.findall(r"^\s*([A-Z_]+) = '([^']*)'$", re.search(r"environment \{(.*?)\n    \}", text, re.S).group(1), re.M))
steps, stage = [], None
token = re.compile(r"stage\('([^']+)'\)|(\bpost \{)|\bsh '''(.*?)'''|\bsh '([^']*)'", re.S)
for m in token.finditer(text):
    if m.group(1) or m.group(2):
        stage = m.group(1) or "post"
    elif stage != "Build":
        steps.append((stage or "post", textwrap.dedent(m.group(3) or m.group(4)).strip()))
collected = re.findall(r"testResults: '([^']+)'", text)
collected += [p.strip() for a in re.findall(r"archiveArtifacts artifacts: '([^']+)'", text) for p in a.split(",")]
write("jenkins", env, steps, collected)
PY

# Runs the extracted steps of $1 in workspace $2 with shell $3...
night() {
  local kind=$1 ws=$2 step
  shift 2
  checkout "$ws"
  for step in "$work/steps-$kind"/[0-9]*.sh; do
    echo "== $kind: $(head -n 1 "$step")"
    (
      cd "$ws"
      . "$work/steps-$kind/env.sh"
      export RUNNER=$runner RUNNER_STORE=$store GITHUB_STEP_SUMMARY=$work/summary-$kind.md
      "$@" "$step"
    ) || fail "$kind: step $(head -n 1 "$step") failed in $ws"
  done
  while read -r glob; do
    (cd "$ws" && compgen -G "$glob" > /dev/null) || fail "$kind: $ws has nothing for $glob (a later step reads it)"
  done < "$work/steps-$kind/collected.txt"
}

# Checks the JUnit files of workspace $1 parse and say what compare said.
check_junit() {
  python3 - "$1" <<'PY'
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
ws = Path(sys.argv[1])
for name in ("runner-compare.xml", "runner-history.xml"):
    root = ET.parse(ws / name).getroot()
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    if root.tag != "testsuites" or int(suite.get("tests")) != len(cases) or not cases:
        sys.exit(f"test-ci-guides: {ws / name}: {len(cases)} test cases, the suite says {suite.get('tests')}")
print(f"test-ci-guides: {ws.name}: JUnit files parse")
PY
}

night github "$work/night-1" bash --noprofile --norc -eo pipefail
check_junit "$work/night-1"
night github "$work/night-2" bash --noprofile --norc -eo pipefail
check_junit "$work/night-2"
summary=$(cat "$work/summary-github.md")
[ "$(grep -c '^# Comparison: ' <<< "$summary")" = 2 ] ||
  fail "the step summary does not hold both nights' comparisons"
grep -q '^# History: ci-guide' <<< "$summary" || fail "the step summary has no history"

night jenkins "$work/jenkins" sh -e
check_junit "$work/jenkins"
echo "test-ci-guides: the GitHub Actions workflow (two nights) and the Jenkinsfile ran"
