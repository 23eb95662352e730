#!/bin/sh
# The static files every server serves: 1 KiB and 64 KiB of text (made, not
# committed), the same bytes for every server.
set -eu
mkdir -p site
[ -s site/1k.txt ] || head -c 1024 /dev/zero | tr '\0' a > site/1k.txt
[ -s site/64k.txt ] || head -c 65536 /dev/zero | tr '\0' b > site/64k.txt
