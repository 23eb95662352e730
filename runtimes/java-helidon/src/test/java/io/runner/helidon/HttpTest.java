package io.runner.helidon;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import io.helidon.webserver.WebServer;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real server (Helidon WebServer on an ephemeral 127.0.0.1 port) against every vector and error case. */
class HttpTest {
    private static final Map<Integer, WebServer> SERVERS = new ConcurrentHashMap<>();
    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    /** One server per work factor (the vectors use several). */
    private static int port(int workFactor) {
        return SERVERS.computeIfAbsent(workFactor,
                                       wf -> Service.start(new Settings("127.0.0.1", 0, wf, false))).port();
    }

    @AfterAll
    static void stop() {
        SERVERS.values().forEach(WebServer::stop);
    }

    private static HttpResponse<String> call(int workFactor, String method, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(workFactor) + path))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(60))
                .build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private static JsonObject okJson(HttpResponse<String> res) {
        assertEquals(200, res.statusCode(), res.body());
        checkFraming(res);
        return Vectors.parse(res.body());
    }

    private static void checkFraming(HttpResponse<String> res) {
        assertEquals("application/json", res.headers().firstValue("content-type").orElse(null));
        long length = res.headers().firstValueAsLong("content-length").orElse(-1);
        assertEquals(res.body().getBytes(StandardCharsets.UTF_8).length, length, "explicit Content-Length");
        assertFalse(res.headers().firstValue("transfer-encoding").isPresent(), "no chunked encoding");
    }

    private static void checkWork(JsonObject v, JsonObject body) {
        int workFactor = v.getInt("workFactor");
        assertEquals(v.getJsonNumber("hash").longValueExact(), body.getJsonNumber("hash").longValueExact(), "hash");
        assertEquals(v.getJsonNumber("workScore").longValueExact(), body.getJsonNumber("workScore").longValueExact(),
                     "workScore");
        assertEquals(workFactor, body.getInt("workFactor"));
        for (String key : new String[] {"input", "uppercase", "lowercase", "reversed"}) {
            if (v.containsKey(key)) {
                assertEquals(v.getString(key), body.getString(key), key);
            }
        }
        if (v.containsKey("inputLength")) {
            int n = v.getInt("inputLength");
            assertEquals(n, body.getString("input").length(), "input length");
            assertEquals(n, body.getString("uppercase").length());
            assertEquals(n, body.getString("lowercase").length());
            assertEquals(n, body.getString("reversed").length());
        }
        assertEquals("java", body.getString("language"));
        assertEquals(Runtime.version().toString(), body.getString("runtime"));
        assertFalse(body.getBoolean("logEnabled"));
        assertEquals("virtual threads", body.getJsonObject("runtimeInfo").getString("serverModel"));
    }

    @TestFactory
    Stream<DynamicTest> generatedVectors() {
        return Vectors.generated().stream().map(v -> DynamicTest.dynamicTest(
                "GET /api/generated/" + v.getInt("size") + " WORK_FACTOR=" + v.getInt("workFactor"),
                () -> checkWork(v, okJson(call(v.getInt("workFactor"), "GET", "/api/generated/" + v.getInt("size"))))));
    }

    @TestFactory
    Stream<DynamicTest> stringVectors() {
        return Vectors.strings().stream().map(v -> {
            String encoded = URLEncoder.encode(v.getString("value"), StandardCharsets.UTF_8).replace("+", "%20");
            return DynamicTest.dynamicTest(
                    "GET /api/strings/" + encoded + " WORK_FACTOR=" + v.getInt("workFactor"),
                    () -> checkWork(v, okJson(call(v.getInt("workFactor"), "GET", "/api/strings/" + encoded))));
        });
    }

    @TestFactory
    Stream<DynamicTest> errorVectors() {
        return Vectors.errors().stream().map(v -> {
            String method = v.getString("method", "GET");
            return DynamicTest.dynamicTest(
                    method + " " + v.getString("path") + " -> " + v.getInt("status"),
                    () -> {
                        HttpResponse<String> res = call(1, method, v.getString("path"));
                        assertEquals(v.getInt("status"), res.statusCode(), res.body());
                        checkFraming(res);
                        JsonObject body = Vectors.parse(res.body());
                        assertFalse(body.getString("error").isBlank());
                        if (v.getInt("status") == 404) {
                            assertEquals("not found", body.getString("error"));
                        } else if (v.getInt("status") == 405) {
                            assertEquals("method not allowed", body.getString("error"));
                        }
                    });
        });
    }

    @Test
    void health() throws Exception {
        JsonObject body = okJson(call(1, "GET", "/health"));
        assertEquals("UP", body.getString("status"));
        assertEquals("java", body.getString("language"));
        assertEquals(Runtime.version().toString(), body.getString("runtime"));
        JsonObject info = body.getJsonObject("runtimeInfo");
        assertEquals(Runtime.getRuntime().availableProcessors(), info.getInt("cpus"));
        assertEquals(Runtime.getRuntime().availableProcessors(), info.getInt("parallelism"));
        assertEquals("ActiveProcessorCount", info.getString("parallelismSource"));
        assertEquals(Long.toString(Runtime.getRuntime().maxMemory()), info.getString("memoryLimit"));
        assertEquals("virtual threads", info.getString("serverModel"));
        assertTrue(info.getBoolean("virtualThread"), "the /health handler runs on a virtual thread");
    }

    @Test
    void tcpNoDelayAndKeepAliveOnAcceptedConnections() {
        port(1);
        var options = SERVERS.get(1).prototype().connectionOptions();
        assertTrue(options.tcpNoDelay());
        assertEquals(Boolean.TRUE, options.socketOptions().get(java.net.StandardSocketOptions.TCP_NODELAY));
        assertTrue(options.socketKeepAlive());
    }

    @Test
    void ready() throws Exception {
        assertEquals("READY", okJson(call(1, "GET", "/ready")).getString("status"));
    }

    @Test
    void moreBadRequests() throws Exception {
        for (String path : new String[] {"/api/generated/2000000", "/api/generated/+5", "/api/generated/%201"}) {
            assertEquals(400, call(1, "GET", path).statusCode(), path);
        }
        for (String path : new String[] {"/api/generated/", "/api/generated/1/2", "/api/strings/", "/", "/health/x"}) {
            assertEquals(404, call(1, "GET", path).statusCode(), path);
        }
        for (String method : new String[] {"POST", "PUT", "DELETE", "PATCH"}) {
            assertEquals(405, call(1, method, "/api/strings/abc").statusCode(), method);
            assertEquals(405, call(1, method, "/ready").statusCode(), method);
        }
        // still serving
        assertEquals(200, call(1, "GET", "/api/generated/7").statusCode());
    }

    @Test
    void percentDecodedStrings() throws Exception {
        JsonObject body = okJson(call(1, "GET", "/api/strings/a%20b%22c%5C%F0%9F%98%80"));
        assertEquals("a b\"c\\\uD83D\uDE00", body.getString("input"));
        assertEquals("\uD83D\uDE00\\c\"b a", body.getString("reversed"));
        assertEquals("A B\"C\\\uD83D\uDE00", body.getString("uppercase"));
    }

    @Test
    void headHasHeadersButNoBody() throws Exception {
        HttpResponse<String> get = call(1, "GET", "/api/generated/128");
        HttpResponse<String> head = call(1, "HEAD", "/api/generated/128");
        assertEquals(200, head.statusCode());
        assertEquals(get.headers().firstValue("content-length"), head.headers().firstValue("content-length"));
        assertEquals("", head.body());
    }

    /** Raw keep-alive: two requests on one connection, the second after a bad one. */
    @Test
    void keepAliveAcrossBadRequest() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port(1))) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET /api/generated/abc HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /api/generated/7 HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket.setSoTimeout(10_000);
            InputStream in = socket.getInputStream();
            StringBuilder got = new StringBuilder();
            byte[] buf = new byte[8192];
            while (!got.toString().contains("\"workScore\":3584129939")) {
                int r = in.read(buf);
                if (r < 0) {
                    break;
                }
                got.append(new String(buf, 0, r, StandardCharsets.UTF_8));
            }
            String all = got.toString();
            assertTrue(all.startsWith("HTTP/1.1 400"), all);
            assertTrue(all.contains("HTTP/1.1 200"), all);
            assertTrue(all.contains("\"workScore\":3584129939"), all);
        }
    }
}
