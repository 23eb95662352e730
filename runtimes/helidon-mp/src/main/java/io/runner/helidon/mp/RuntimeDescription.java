package io.runner.helidon.mp;

import java.nio.charset.StandardCharsets;

import io.runner.helidon.Json;

/** The runtime's description in /health and every work answer, computed once per value of virtualThread. */
final class RuntimeDescription {
    private RuntimeDescription() {
    }

    static String runtimeInfo(boolean virtual) {
        int cpus = Runtime.getRuntime().availableProcessors();
        int parallelism = cpus;
        String source = "ActiveProcessorCount";
        String vtParallelism = System.getProperty("jdk.virtualThreadScheduler.parallelism");
        if (vtParallelism != null) {
            try {
                parallelism = Integer.parseInt(vtParallelism.trim());
                source = "jdk.virtualThreadScheduler.parallelism";
            } catch (NumberFormatException ignored) {
                // the JVM itself rejects such a value at the first virtual thread; keep the default
            }
        }
        return "{\"cpus\":" + cpus
                + ",\"parallelism\":" + parallelism
                + ",\"parallelismSource\":" + Json.quote(source)
                + ",\"memoryLimit\":" + Json.quote(Long.toString(Runtime.getRuntime().maxMemory()))
                + ",\"serverModel\":" + Json.quote(ContractResource.SERVER_MODEL)
                + ",\"virtualThread\":" + virtual
                + "}";
    }

    static String health(boolean virtual) {
        return "{\"status\":\"UP\",\"language\":\"java\",\"runtime\":" + Json.quote(Runtime.version().toString())
                + ",\"runtimeInfo\":" + runtimeInfo(virtual) + "}";
    }

    static byte[] suffix(boolean virtual, boolean log) {
        return (",\"runtime\":" + Json.quote(Runtime.version().toString())
                + ",\"language\":\"java\""
                + ",\"logEnabled\":" + log
                + ",\"runtimeInfo\":" + runtimeInfo(virtual) + "}").getBytes(StandardCharsets.UTF_8);
    }
}
