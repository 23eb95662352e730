#!/usr/bin/env bash
# Everything the tests and CI need beyond the toolchains (Rust, Go, Node.js,
# Maven, a JDK 25, Python, gcc), in one place: scripts/test-all.sh (the
# README's test command) calls it first, and so does .ci/run, so a fresh
# machine runs every test with none skipped.
#   - PostgreSQL 15 and its system user (tests/exec_dependencies.rs, the
#     `postgres` kind): scripts/install-postgres.sh
#   - Debian's nginx, lighttpd, h2o and caddy (tests/exec_off_the_shelf.rs,
#     experiments/web-servers.yaml): scripts/install-web-servers.sh
#   - Debian's OpenSSH server, never run as a system service
#     (scripts/test-hosts.sh): scripts/install-sshd.sh
#   - from PyPI, the consumers CI reads runner's outputs with
#     (scripts/check-ci-outputs.sh, scripts/test-ci-guides.sh): junitparser,
#     prometheus_client, jsonschema, PyYAML
# Each step is idempotent and quick when its packages are there. As root it
# installs; as another user it only checks, and names the one command to run
# as root when something is missing (nothing is skipped quietly).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
[ -x /usr/lib/postgresql/15/bin/postgres ] && id runner-pg >/dev/null 2>&1 ||
  missing+=("PostgreSQL 15 and the user runner-pg")
python3 -c 'import pg8000' 2>/dev/null || missing+=("Python's pg8000")
python_modules=(junitparser:junitparser prometheus_client:prometheus_client jsonschema:jsonschema yaml:PyYAML)
python_missing=()
for pair in "${python_modules[@]}"; do
  python3 -c "import ${pair%%:*}" 2>/dev/null || python_missing+=("${pair##*:}")
done
[ ${#python_missing[@]} -eq 0 ] || missing+=("Python's ${python_missing[*]}")
for program in nginx lighttpd h2o caddy sshd; do
  command -v "$program" >/dev/null 2>&1 || [ -x "/usr/sbin/$program" ] || missing+=("$program")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-deps: the tests need what this machine lacks: $(IFS=,; echo "${missing[*]}" | sed 's/,/, /g')" >&2
  echo "install-deps: run 'sudo scripts/install-deps.sh' once (it uses Debian's apt and PyPI), then again" >&2
  exit 1
fi
echo "install-deps: installing $(IFS=,; echo "${missing[*]}" | sed 's/,/, /g')" >&2
scripts/install-postgres.sh
scripts/install-web-servers.sh
scripts/install-sshd.sh >/dev/null
if [ ${#python_missing[@]} -gt 0 ]; then
  python3 -m pip install -q "${python_missing[@]}" ||
    python3 -m pip install -q --break-system-packages "${python_missing[@]}"
fi
