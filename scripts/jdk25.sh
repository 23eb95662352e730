# Sourced by scripts: points JAVA_HOME at a JDK 25 (Helidon 4 and Leyden AOT need it).
# Keeps an existing JAVA_HOME that is already 25; otherwise looks in /usr/lib/jvm.
jdk25_version() { sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null; }
if [ -z "${JAVA_HOME:-}" ] || [ "$(jdk25_version "$JAVA_HOME")" != "25" ]; then
  for home in /usr/lib/jvm/*; do
    if [ "$(jdk25_version "$home")" = "25" ]; then JAVA_HOME=$home; break; fi
  done
fi
if [ "$(jdk25_version "${JAVA_HOME:-/nonexistent}")" != "25" ]; then
  echo "error: no JDK 25 found (JAVA_HOME or /usr/lib/jvm/*); install one, e.g. Temurin 25" >&2
  return 1 2>/dev/null || exit 1
fi
export JAVA_HOME PATH="$JAVA_HOME/bin:$PATH"
