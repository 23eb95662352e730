#!/usr/bin/env bash
# The off-the-shelf web servers of experiments/web-servers.yaml and of the
# test that benchmarks a server the user did not build
# (tests/exec_off_the_shelf.rs): Debian's nginx, lighttpd, h2o and caddy,
# installed idempotently; called by .ci/run, and once by hand on a new
# machine. Debian starts an installed nginx or lighttpd as a system service
# on port 80 where systemd runs; runner never uses those instances (each
# start gets its own config and port), and on hosts without systemd (CI
# containers) nothing is started.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "install-web-servers: needs root" >&2; exit 1; }
missing=()
for pair in nginx:nginx lighttpd:lighttpd h2o:h2o caddy:caddy; do
  program=${pair%%:*} package=${pair##*:}
  command -v "$program" >/dev/null 2>&1 || [ -x "/usr/sbin/$program" ] || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  # policy-rc.d 101: no service is started by the packages' postinst (one
  # already there is the host's own, left alone).
  if ! [ -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
for program in nginx lighttpd h2o caddy; do
  command -v "$program" >/dev/null 2>&1 || [ -x "/usr/sbin/$program" ] ||
    { echo "install-web-servers: $program is still missing" >&2; exit 1; }
done
