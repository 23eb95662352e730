package io.runner.helidon;

import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.stream.Collectors;

import io.helidon.common.tls.Tls;
import io.helidon.common.socket.SocketOptions;
import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderValues;
import io.helidon.http.Method;
import io.helidon.http.PathMatchers;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * The contract's HTTP service on the Helidon SE 4 WebServer.
 * <p>
 * Helidon 4 serves every connection on its own virtual thread and runs the handlers on that thread
 * (blocking, imperative code; no reactive API). Bodies are rendered straight to bytes with their length
 * known, so Helidon sends them with an explicit Content-Length.
 */
public final class Service {
    private static final System.Logger REQUEST_LOG = System.getLogger("io.runner.helidon.requests");
    private static final byte[] EMPTY = new byte[0];

    private static final byte[] READY = Json.ascii("{\"status\":\"READY\"}");
    private static final byte[] NOT_FOUND = Json.ascii("{\"error\":\"not found\"}");
    private static final byte[] METHOD_NOT_ALLOWED = Json.ascii("{\"error\":\"method not allowed\"}");
    private static final byte[] SIZE_NOT_INTEGER = Json.ascii("{\"error\":\"size must be a decimal integer\"}");
    private static final byte[] BAD_STRING_VALUE =
            Json.ascii("{\"error\":\"value is not valid percent-encoded UTF-8\"}");
    private static final byte[] SIZE_OUT_OF_RANGE =
            Json.ascii("{\"error\":\"size must be between 1 and " + Work.MAX_SIZE + "\"}");

    private static final Method[] READ_METHODS = {Method.GET, Method.HEAD};

    private final Settings settings;
    private final boolean log;
    /** Null unless METRICS=true. */
    private final RequestMetrics metrics;
    /** Requests are timed when they are logged or counted. */
    private final boolean timed;
    // constant tails of the answers, one per value of runtimeInfo.virtualThread (measured per request)
    private final byte[] healthVirtual;
    private final byte[] healthPlatform;
    private final byte[] suffixVirtual;
    private final byte[] suffixPlatform;

    public Service(Settings settings) {
        this.settings = settings;
        this.log = settings.logRequests();
        this.metrics = settings.metrics() ? new RequestMetrics() : null;
        this.timed = log || metrics != null;
        this.healthVirtual = Json.ascii(health(true));
        this.healthPlatform = Json.ascii(health(false));
        this.suffixVirtual = utf8(suffix(true));
        this.suffixPlatform = utf8(suffix(false));
    }

    /**
     * Build and start the server.
     *
     * @param settings settings
     * @return the started server (its port is {@link WebServer#port()})
     */
    public static WebServer start(Settings settings) {
        Service service = new Service(settings);
        TransportSettings transport = settings.transport();
        Tls tls;
        try {
            tls = transport.tls() ? Transport.tls(transport) : null;
        } catch (Settings.InvalidSetting e) {
            // Main checks it before (exit 2); a test's server says why here.
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return WebServer.builder()
                .host(settings.host())
                .port(settings.port())
                .connectionOptions(SocketOptions.builder()
                                           .tcpNoDelay(true)
                                           .socketKeepAlive(true)
                                           .build())
                .directHandlers(jsonDirectHandlers())
                .update(b -> {
                    if (tls != null) {
                        // TLS only on PORT; ALPN offers h2 (helidon-webserver-http2) and http/1.1
                        b.tls(tls);
                    } else if (!transport.h2c()) {
                        // Plain HTTP/1.1 only: without this the discovered HTTP/2 module would also take h2c
                        // (prior knowledge and Upgrade) on the plain port, which this start does not declare.
                        b.protocolsDiscoverServices(false).addProtocol(Http1Config.create());
                    }
                    if (settings.metrics()) {
                        b.addFeature(RequestMetrics.observeFeature());
                    }
                })
                .routing(service::routing)
                .build()
                .start();
    }

    /** Register the routes. Order matters: the 405 and 404 catch-alls come last. */
    public void routing(HttpRouting.Builder routing) {
        routing.route(Method.predicate(READ_METHODS), PathMatchers.create("/health"), this::health)
                .route(Method.predicate(READ_METHODS), PathMatchers.create("/ready"), this::ready)
                .route(Method.predicate(READ_METHODS), PathMatchers.create("/api/generated/{size}"), this::generated)
                .route(Method.predicate(READ_METHODS), PathMatchers.create("/api/strings/{value}"), this::strings)
                .any("/health", this::methodNotAllowed)
                .any("/ready", this::methodNotAllowed)
                .any("/api/generated/{size}", this::methodNotAllowed)
                .any("/api/strings/{value}", this::methodNotAllowed)
                .any(this::notFound);
    }

    private void health(ServerRequest req, ServerResponse res) {
        long t0 = timed ? System.nanoTime() : 0L;
        byte[] body = Thread.currentThread().isVirtual() ? healthVirtual : healthPlatform;
        sendFixed(req, res, "health", Status.OK_200, body, t0);
    }

    private void ready(ServerRequest req, ServerResponse res) {
        long t0 = timed ? System.nanoTime() : 0L;
        sendFixed(req, res, "ready", Status.OK_200, READY, t0);
    }

    private void generated(ServerRequest req, ServerResponse res) {
        long t0 = timed ? System.nanoTime() : 0L;
        String raw = req.path().pathParameters().get("size");
        int size = parseSize(raw);
        if (size <= 0) {
            byte[] body = size == 0 ? SIZE_NOT_INTEGER : SIZE_OUT_OF_RANGE;
            sendFixed(req, res, "generated", Status.BAD_REQUEST_400, body, t0);
            return;
        }
        work(req, res, "generated", Work.generatedInput(size), t0);
    }

    private void strings(ServerRequest req, ServerResponse res) {
        long t0 = timed ? System.nanoTime() : 0L;
        // Helidon's routed parameter is decoded leniently (bad UTF-8 becomes
        // U+FFFD); the contract wants a 400 there, so decode the raw segment strictly.
        String rawPath = req.path().rawPath();
        byte[] value = Work.percentDecodeUtf8(rawPath.substring(rawPath.lastIndexOf('/') + 1));
        if (value == null) {
            sendFixed(req, res, "strings", Status.BAD_REQUEST_400, BAD_STRING_VALUE, t0);
            return;
        }
        work(req, res, "strings", value, t0);
    }

    /** Sends a prepared answer without work, and logs it (when logging is on). */
    private void sendFixed(ServerRequest req, ServerResponse res, String endpoint, Status status, byte[] body,
                           long t0) {
        send(req, res, status, body, body.length);
        finished(req, endpoint, 0, t0, status);
    }

    private void work(ServerRequest req, ServerResponse res, String endpoint, byte[] input, long t0) {
        Work work = Work.compute(input, settings.workFactor());
        Json json = work.toJson(Thread.currentThread().isVirtual() ? suffixVirtual : suffixPlatform);
        send(req, res, Status.OK_200, json.buffer(), json.length());
        finished(req, endpoint, input.length, t0, Status.OK_200);
    }

    private void methodNotAllowed(ServerRequest req, ServerResponse res) {
        long t0 = timed ? System.nanoTime() : 0L;
        sendFixed(req, res, "method_not_allowed", Status.METHOD_NOT_ALLOWED_405, METHOD_NOT_ALLOWED, t0);
    }

    private void notFound(ServerRequest req, ServerResponse res) {
        if (metrics != null && RequestMetrics.isMetricsPath(req.path().path())) {
            res.next(); // to the metrics observer, registered after these routes
            return;
        }
        long t0 = timed ? System.nanoTime() : 0L;
        sendFixed(req, res, "none", Status.NOT_FOUND_404, NOT_FOUND, t0);
    }

    private static void send(ServerRequest req, ServerResponse res, Status status, byte[] body, int length) {
        res.status(status);
        res.header(HeaderValues.CONTENT_TYPE_JSON);
        if (req.prologue().method() == Method.HEAD) {
            // same headers as GET, no body
            res.headers().contentLength(length);
            res.send(EMPTY);
        } else {
            res.send(body, 0, length);
        }
    }

    /** After a request's answer: its log line (LOG_REQUESTS) and its count and time (METRICS). */
    private void finished(ServerRequest req, String endpoint, int inputBytes, long t0, Status status) {
        if (!timed) {
            return;
        }
        long nanos = System.nanoTime() - t0;
        if (log) {
            REQUEST_LOG.log(Level.INFO, req.prologue().method().text() + " " + req.path().rawPath()
                    + " status=" + status.code() + " size=" + inputBytes + " elapsed_us=" + nanos / 1_000);
        }
        if (metrics != null) {
            metrics.record(endpoint, status.code(), nanos);
        }
    }

    /** Parse {@code size} (see {@link Work#parseSize}). */
    static int parseSize(String raw) {
        return Work.parseSize(raw);
    }

    /** Protocol-level errors (bad request line, bad headers, ...) that never reach the routing: JSON too. */
    private static DirectHandlers jsonDirectHandlers() {
        DirectHandler handler = (request, eventType, status, headers, message) ->
                DirectHandler.TransportResponse.builder()
                        .status(status)
                        .headers(headers)
                        .header(HeaderValues.CONTENT_TYPE_JSON)
                        .entity(Json.ascii("{\"error\":" + Json.quote(status.reasonPhrase().toLowerCase(Locale.ROOT))
                                                   + "}"))
                        .build();
        DirectHandlers.Builder builder = DirectHandlers.builder();
        for (DirectHandler.EventType type : DirectHandler.EventType.values()) {
            builder.addHandler(type, handler);
        }
        return builder.build();
    }

    // ---- runtime description (computed once) ----

    static String runtimeVersion() {
        return Runtime.version().toString();
    }

    private String runtimeInfo(boolean virtual) {
        int cpus = Runtime.getRuntime().availableProcessors();
        String vtParallelism = System.getProperty("jdk.virtualThreadScheduler.parallelism");
        int parallelism = cpus;
        String source = "ActiveProcessorCount";
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
                + ",\"serverModel\":\"virtual threads\""
                + ",\"virtualThread\":" + virtual
                + ",\"tls\":" + Json.quote(settings.transport().tlsName())
                + ",\"protocols\":" + settings.transport().protocols().stream()
                        .map(Json::quote)
                        .collect(Collectors.joining(",", "[", "]"))
                + "}";
    }

    private String health(boolean virtual) {
        return "{\"status\":\"UP\",\"language\":\"java\",\"runtime\":" + Json.quote(runtimeVersion())
                + ",\"runtimeInfo\":" + runtimeInfo(virtual) + "}";
    }

    private String suffix(boolean virtual) {
        return ",\"runtime\":" + Json.quote(runtimeVersion())
                + ",\"language\":\"java\""
                + ",\"logEnabled\":" + log
                + ",\"runtimeInfo\":" + runtimeInfo(virtual) + "}";
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
