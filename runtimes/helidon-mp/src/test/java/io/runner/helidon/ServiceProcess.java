package io.runner.helidon;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The MP service as a child process (`java -cp <the test class path> io.runner.helidon.mp.Main`) with the given
 * environment: its port read from its "listening on" line, its stderr collected (the request log), stopped with
 * SIGTERM and waited for.
 */
final class ServiceProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on http://[^:]+:(\\d+)");
    private static final String REQUEST_LOGGER = "io.runner.helidon.mp.requests:";

    private final Process process;
    private final int port;
    private final List<String> stderr = new ArrayList<>();

    private ServiceProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static ServiceProcess start(Map<String, String> env) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                                               "io.runner.helidon.mp.Main");
        pb.environment().putAll(env);
        Process p = pb.start();
        // A test JVM stopped by a signal (not SIGKILL) takes its services with it.
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader out = reader(p.getInputStream())) {
                for (String line; (line = out.readLine()) != null; ) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
                port.completeExceptionally(new IllegalStateException("the service exited before listening"));
            } catch (IOException e) {
                port.completeExceptionally(e);
            }
        });
        ServiceProcess s;
        try {
            s = new ServiceProcess(p, port.get(120, TimeUnit.SECONDS));
        } catch (Exception e) {
            p.destroyForcibly();
            throw new IllegalStateException("helidon-mp did not start: " + e, e);
        }
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader err = reader(p.getErrorStream())) {
                for (String line; (line = err.readLine()) != null; ) {
                    synchronized (s.stderr) {
                        s.stderr.add(line);
                        s.stderr.notifyAll();
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        return s;
    }

    int port() {
        return port;
    }

    /** The request-log lines so far, waiting up to 5 s for at least {@code atLeast} of them to arrive. */
    List<String> requestLines(int atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        synchronized (stderr) {
            while (true) {
                List<String> lines = stderr.stream().filter(l -> l.contains(REQUEST_LOGGER)).toList();
                long left = deadline - System.nanoTime();
                if (lines.size() >= atLeast || left <= 0) {
                    return lines;
                }
                stderr.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy(); // SIGTERM: Helidon's shutdown hook stops the server
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    private static BufferedReader reader(java.io.InputStream in) {
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }
}
