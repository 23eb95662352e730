#!/usr/bin/env bash
# What the dependency tests (tests/exec_dependencies.rs, the `postgres`
# kind) need, installed idempotently; called by .ci/run, and once by hand
# before scripts/test-all.sh on a new machine: Debian's PostgreSQL 15, the
# system user runner-pg (PostgreSQL refuses to run as root, so the runner
# starts it as that user: docs/spec.md) and pg8000, the pure-Python driver
# of the CRUD fixture service. apt-get skips an installed package, the user
# is made once, pip leaves a satisfied requirement alone.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "install-postgres: needs root" >&2; exit 1; }
if ! [ -x /usr/lib/postgresql/15/bin/postgres ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
id runner-pg >/dev/null 2>&1 ||
  useradd --system --user-group --no-create-home --shell /usr/sbin/nologin runner-pg
python3 -c 'import pg8000' 2>/dev/null || python3 -m pip install -q pg8000 ||
  python3 -m pip install -q --break-system-packages pg8000
