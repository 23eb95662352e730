#!/usr/bin/env bash
# What `runner plan` prints for every committed spec (experiments/ and
# tests/specs/good), as a table and as JSON, plain, with --quick, with
# --repeats=1 and with --only runtime=<its first runtime>: written to
# OUT_DIR, one file per spec and form, so two builds can be compared with
# `diff -r`. A refactoring that must not change behaviour is checked with:
#
#   RUNNER=old/target/debug/runner scripts/same-plans.sh /tmp/plans-before
#   RUNNER=target/debug/runner     scripts/same-plans.sh /tmp/plans-after
#   diff -r /tmp/plans-before /tmp/plans-after
#
# Run both from the same checkout (the specs and results/ are read from the
# current directory; the last comparable run under results/ feeds the
# plan's design figures). Exit status: 0 when every spec was planned (a spec
# the plan refuses is recorded with its error and exit code, not skipped).
set -euo pipefail
out=${1:?usage: scripts/same-plans.sh OUT_DIR}
runner=${RUNNER:-target/debug/runner}
mkdir -p "$out"
floor=$(grep -rh 'const AUTO_FLOOR: u16' src/plan | sed 's/.*= *//; s/[^0-9]//g')
ephemeral=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)

# Auto ports start at a random place in their window (src/plan/ports.rs), so
# every number in that window is named by its order of first appearance in
# the file (port#1, port#2, ...): two plans agree when their ports play the
# same parts. A difference in another number that happens to fall in the
# window would be masked only if it kept the order.
normalise_ports() {
  python3 - "$1" "$floor" "$ephemeral" <<'PY'
import re, sys
path, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
text = open(path).read()
seen = {}
def name(m):
    n = int(m.group(0))
    if not lo <= n < hi:
        return m.group(0)
    return "port#%d" % seen.setdefault(n, len(seen) + 1)
open(path, "w").write(re.sub(r"(?<![0-9.])[0-9]{4,5}(?![0-9.])", name, text))
PY
}
n=0
for spec in experiments/*.yaml tests/specs/good/*.yaml; do
  [ -f "$spec" ] || continue
  name=$(echo "$spec" | tr '/' '_')
  first=$("$runner" plan --format json "$spec" 2>/dev/null \
    | python3 -c 'import json,sys; p=json.load(sys.stdin); print(p["runtimes"][0]["name"])' 2>/dev/null || true)
  forms=("plain::" "quick::--quick" "repeats::--repeats=1")
  [ -n "$first" ] && forms+=("only::--only=runtime=$first")
  for form in "${forms[@]}"; do
    label=${form%%::*}
    flag=${form#*::}
    for format in table json; do
      file="$out/$name.$label.$format"
      # shellcheck disable=SC2086
      if "$runner" plan --format "$format" $flag "$spec" >"$file" 2>&1; then
        :
      else
        echo "exit $?" >>"$file"
      fi
      normalise_ports "$file"
      n=$((n + 1))
    done
  done
done
echo "$n plans written to $out"
