#!/usr/bin/env bash
# Installs Debian's OpenSSH server for scripts/test-hosts.sh, idempotently
# (called by .ci/run), without ever running the system's sshd: the tests
# start their own `sshd -D -f <config>` inside network namespaces.
#
# policy-rc.d (exit 101) keeps the package's scripts from starting the
# service during the install; afterwards the service is disabled again and
# /etc/ssh/sshd_not_to_be_run (Debian's switch, honoured by its unit and
# init script) keeps it from starting at boot.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "install-sshd: needs root" >&2; exit 1; }
if [ ! -x /usr/sbin/sshd ]; then
    created=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        created=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openssh-server openssh-client
    [ -z "$created" ] || rm -f /usr/sbin/policy-rc.d
fi
mkdir -p /etc/ssh
touch /etc/ssh/sshd_not_to_be_run
if command -v systemctl >/dev/null; then
    systemctl disable ssh.service ssh.socket >/dev/null 2>&1 || true
fi
rm -f /etc/systemd/system/sshd.service /etc/systemd/system/multi-user.target.wants/ssh.service
echo "install-sshd: $(/usr/sbin/sshd -V 2>&1 | head -n 1) (system service disabled)"
