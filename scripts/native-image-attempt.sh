#!/usr/bin/env bash
# A real attempt at a GraalVM native image of runtimes/java-helidon on this kind of host: Temurin 25 (which
# carries JVMCI and the jdk.graal.compiler module) plus GraalVM's image builder as Maven Central serves it
# (org.graalvm.nativeimage:svm 25.0.2 and the modules it requires). The `native-image` driver
# (org.graalvm.nativeimage:svm-driver) is not served, so the builder's own entry point,
# NativeImageGeneratorRunner, is run with the module exports the driver would pass. docs/native-image.md says
# what happened here and what a host needs instead (a GraalVM or Mandrel JDK). Exits 1 when no image is made.
#
#   scripts/native-image-attempt.sh            # builds java-helidon first if needed
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/jdk25.sh"
version=${SVM_VERSION:-25.0.2}
work=${WORK:-$(mktemp -d /tmp/native-image-attempt.XXXXXX)}
svc=$root/runtimes/java-helidon

if command -v native-image >/dev/null; then
    echo "native-image is on PATH ($(command -v native-image)): use it; this script is for hosts without it"
    exit 0
fi
[ -f "$svc/target/service.jar" ] || (cd "$svc" && mvn -B -q -DskipTests package) || exit 1

echo "== fetching the image builder $version from Maven Central"
for a in nativeimage:svm nativeimage:pointsto nativeimage:objectfile nativeimage:native-image-base \
         nativeimage:svm-configure nativeimage:svm-capnproto-runtime compiler:compiler sdk:nativeimage sdk:word \
         sdk:collections sdk:nativeimage-libgraal truffle:truffle-compiler espresso:espresso-svm; do
    mvn -B -q dependency:get -Dtransitive=false -Dartifact="org.graalvm.$a:$version" >/dev/null 2>&1 ||
        { echo "not served: org.graalvm.$a:$version"; exit 1; }
done
if mvn -B -q dependency:get -Dtransitive=false -Dartifact="org.graalvm.nativeimage:svm-driver:$version" >/dev/null 2>&1; then
    echo "note: svm-driver $version is served now; the driver route may get further"
fi

repo=$HOME/.m2/repository/org/graalvm
modules=$(find "$repo" -name "*-$version.jar" ! -name "compiler-$version.jar" | tr '\n' ':')
cp_jars="$svc/target/service.jar:$(ls "$svc"/target/libs/*.jar | tr '\n' ':')"
to=ALL-UNNAMED,org.graalvm.nativeimage.base,org.graalvm.nativeimage.builder,org.graalvm.nativeimage.pointsto,jdk.graal.compiler,org.graalvm.nativeimage.objectfile
opens=()
for p in jdk.internal.module jdk.internal.misc jdk.internal.loader jdk.internal.reflect jdk.internal.vm \
         jdk.internal.access jdk.internal.vm.annotation jdk.internal.util jdk.internal.logger jdk.internal.ref \
         sun.nio.ch sun.security.x509 jdk.internal.event jdk.internal.platform jdk.internal.foreign \
         jdk.internal.foreign.abi sun.reflect.annotation sun.invoke.util jdk.internal.jimage \
         sun.util.locale.provider sun.security.jca sun.text.spi jdk.internal.math jdk.internal.classfile.impl; do
    opens+=("--add-exports=java.base/$p=$to" "--add-opens=java.base/$p=$to")
done
for p in meta code code.site runtime common amd64 aarch64 riscv64 hotspot services; do
    opens+=("--add-exports=jdk.internal.vm.ci/jdk.vm.ci.$p=$to")
done

echo "== running the image builder (output in $work)"
"$JAVA_HOME/bin/java" -XX:+UnlockExperimentalVMOptions -XX:+EnableJVMCI -XX:-UseJVMCICompiler -Xmx6g "${opens[@]}" \
    -Djava.system.class.loader=com.oracle.svm.hosted.NativeImageSystemClassLoader \
    -Dorg.graalvm.nativeimage.imagecode=buildtime \
    --upgrade-module-path "$repo/compiler/compiler/$version/compiler-$version.jar" \
    --module-path "$modules" --add-modules ALL-DEFAULT \
    -m org.graalvm.nativeimage.builder/com.oracle.svm.hosted.NativeImageGeneratorRunner \
    -imagecp "$cp_jars" -H:Path="$work" -H:Name=service -H:Class=io.runner.helidon.Main \
    >"$work/builder.log" 2>&1
status=$?
grep -v '^\s*at \|^WARNING: package' "$work/builder.log" | tail -n 12
if [ $status -eq 0 ] && [ -x "$work/service" ]; then
    echo "native image: $work/service ($(du -h "$work/service" | cut -f1))"
    exit 0
fi
echo "no native image (builder exit $status; full log $work/builder.log)"
exit 1
