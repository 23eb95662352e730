#!/usr/bin/env bash
# Prints the commands the README shows in one section, as written: the
# indented code lines under the heading `## SECTION` up to the next
# heading. CI runs them through scripts/test-readme.sh, so the README's
# commands are what is tested, not a copy of them.
#   scripts/readme-commands.sh "Set up and run"
set -euo pipefail
section=${1:?usage: readme-commands.sh SECTION}
readme="$(dirname "$0")/../README.md"
awk -v want="## $section" '
  /^## / { inside = ($0 == want); next }
  inside && /^    [^ ]/ { sub(/^    /, ""); print }
' "$readme" | grep . || { echo "readme-commands: no commands under '## $section' in README.md" >&2; exit 1; }
