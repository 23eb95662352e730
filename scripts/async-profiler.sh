#!/usr/bin/env bash
# Fetches async-profiler from Maven Central (tools.profiler:async-profiler,
# whose jar carries the native library for each platform) with Maven's own
# client, and unpacks this platform's libasyncProfiler.so into DEST
# (default target/async-profiler). Run as a build step of a JVM runtime
# that profiles with `async_cpu` / `async_alloc` (experiments/profiles.yaml);
# nothing it fetches is committed.
set -euo pipefail
dest=${1:-target/async-profiler}
version=${ASYNC_PROFILER_VERSION:-4.2}
case "$(uname -m)" in
  x86_64) platform=linux-x64 ;;
  aarch64|arm64) platform=linux-arm64 ;;
  *) echo "async-profiler.sh: no async-profiler library for $(uname -m)" >&2; exit 1 ;;
esac
lib="$dest/libasyncProfiler.so"
stamp="$dest/version"
if [ -f "$lib" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
  exit 0
fi
mkdir -p "$dest"
mvn -B -q dependency:copy -Dartifact="tools.profiler:async-profiler:$version" -DoutputDirectory="$dest"
python3 - "$dest/async-profiler-$version.jar" "$platform/libasyncProfiler.so" "$lib" <<'PY'
import sys, zipfile
jar, member, out = sys.argv[1:]
with zipfile.ZipFile(jar) as z, open(out, "wb") as f:
    f.write(z.read(member))
PY
rm -f "$dest/async-profiler-$version.jar"
echo "$version" > "$stamp"
