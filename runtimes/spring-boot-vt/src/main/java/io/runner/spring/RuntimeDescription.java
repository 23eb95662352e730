package io.runner.spring;

import java.nio.charset.StandardCharsets;

import org.springframework.stereotype.Component;

import io.runner.helidon.Json;
import io.runner.helidon.Settings;

/**
 * The constant parts of /health and of the work answers, rendered once per value of
 * {@code runtimeInfo.virtualThread} (which is measured per request, so there are two of each).
 * Parallelism is the virtual-thread scheduler's carrier count: the JVM's active processor count unless
 * {@code jdk.virtualThreadScheduler.parallelism} is set.
 */
@Component
public class RuntimeDescription {
    private final byte[][] health = new byte[2][];
    private final byte[][] workSuffix = new byte[2][];

    public RuntimeDescription(Settings settings) {
        for (int v = 0; v < 2; v++) {
            boolean virtual = v == 1;
            String info = runtimeInfo(virtual);
            String runtime = Json.quote(Runtime.version().toString());
            health[v] = ("{\"status\":\"UP\",\"language\":\"java\",\"runtime\":" + runtime
                    + ",\"runtimeInfo\":" + info + "}").getBytes(StandardCharsets.UTF_8);
            workSuffix[v] = (",\"runtime\":" + runtime + ",\"language\":\"java\",\"logEnabled\":"
                    + settings.logRequests() + ",\"runtimeInfo\":" + info + "}").getBytes(StandardCharsets.UTF_8);
        }
    }

    /** The /health body for a request served on a virtual thread or not. */
    byte[] health(boolean virtual) {
        return health[virtual ? 1 : 0];
    }

    /** The tail of a work answer, from {@code ,"runtime":} to the closing brace. */
    byte[] workSuffix(boolean virtual) {
        return workSuffix[virtual ? 1 : 0];
    }

    private static String runtimeInfo(boolean virtual) {
        int cpus = Runtime.getRuntime().availableProcessors();
        int parallelism = cpus;
        String source = "ActiveProcessorCount";
        String vtParallelism = System.getProperty("jdk.virtualThreadScheduler.parallelism");
        if (vtParallelism != null && vtParallelism.trim().matches("[0-9]{1,9}")) {
            parallelism = Integer.parseInt(vtParallelism.trim());
            source = "jdk.virtualThreadScheduler.parallelism";
        }
        return "{\"cpus\":" + cpus
                + ",\"parallelism\":" + parallelism
                + ",\"parallelismSource\":" + Json.quote(source)
                + ",\"memoryLimit\":" + Json.quote(Long.toString(Runtime.getRuntime().maxMemory()))
                + ",\"serverModel\":\"virtual threads\""
                + ",\"virtualThread\":" + virtual
                + "}";
    }
}
