#!/usr/bin/env bash
# A jlink runtime image for the service: only the JDK modules that the jar and its libs use (found by jdeps),
# without debug symbols, man pages and headers, so that the image plus target/service.jar and target/libs is
# the whole deployable (the 2020 study's "jlinked" image). Needs the JDK the service is built with (JDK 25:
# `java: { version: "25" }` in the spec puts it on PATH). Writes target/jlink-image (replaced if present).
set -euo pipefail
cd "$(dirname "$0")"
[ -f target/service.jar ] || { echo "jlink.sh: target/service.jar missing: build the service first (mvn package)" >&2; exit 1; }
modules=$(jdeps --ignore-missing-deps --print-module-deps --multi-release 25 \
    --class-path "$(ls target/libs/*.jar | tr '\n' ':')" target/service.jar)
# jdk.crypto.ec / jdk.zipfs are loaded reflectively by some libraries, and a JVM image needs them for TLS and
# jar-in-jar access; jdk.jcmd and jdk.management.agent so that jcmd (NMT, JFR) still works on the image.
modules="$modules,jdk.crypto.ec,jdk.zipfs,jdk.jcmd,jdk.management.agent"
rm -rf target/jlink-image
jlink --add-modules "$modules" --strip-debug --no-man-pages --no-header-files --compress zip-6 \
    --output target/jlink-image
echo "jlink.sh: target/jlink-image with $modules ($(du -sh target/jlink-image | cut -f1))"
