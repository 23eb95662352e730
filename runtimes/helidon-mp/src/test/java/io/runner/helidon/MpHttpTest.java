package io.runner.helidon;

import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real Helidon MP service (CDI + JAX-RS on an ephemeral 127.0.0.1 port), started as its own process with
 * the contract's environment, against every contract vector, and LOG_REQUESTS / METRICS counting every request
 * once. A process per configuration, because Helidon MP keeps global state (CDI container, config) that a second
 * server in the same JVM inherits.
 */
class MpHttpTest {
    /** One answer: status, headers (lower-case names) and body. */
    private record Answer(int statusCode, Map<String, String> headers, String body) {
    }

    private static ServiceProcess start(int workFactor, boolean log, boolean metrics) throws Exception {
        return ServiceProcess.start(Map.of("HOST", "127.0.0.1", "PORT", "0", "WORK_FACTOR", Integer.toString(workFactor),
                                    "LOG_REQUESTS", Boolean.toString(log), "METRICS", Boolean.toString(metrics)));
    }

    /**
     * One request through HttpURLConnection. Not java.net.http.HttpClient: against Helidon MP 4.4 its HTTP/1.1
     * client stalls on the 4 MB answer of /api/generated/1048576 (curl, HttpURLConnection and runner's own
     * client read it whole), which is the client's problem, not the service's.
     */
    private static Answer call(ServiceProcess server, String method, String path) throws Exception {
        return call(server, method, path, 60_000);
    }

    private static Answer call(ServiceProcess server, String method, String path, int readTimeoutMillis)
            throws Exception {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + server.port() + path).toURL()
                .openConnection();
        c.setRequestMethod(method);
        c.setConnectTimeout(10_000);
        c.setReadTimeout(readTimeoutMillis);
        int status = c.getResponseCode();
        byte[] body;
        try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
            body = in == null ? new byte[0] : in.readAllBytes();
        }
        Map<String, String> headers = new TreeMap<>();
        c.getHeaderFields().forEach((k, v) -> {
            if (k != null) {
                headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v));
            }
        });
        return new Answer(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    private static JsonObject json(Answer res, int status) {
        assertEquals(status, res.statusCode(), res.body());
        assertEquals("application/json", res.headers().get("content-type"));
        assertEquals(Integer.toString(res.body().getBytes(StandardCharsets.UTF_8).length),
                     res.headers().get("content-length"), "explicit Content-Length");
        assertFalse(res.headers().containsKey("transfer-encoding"), "no chunked encoding");
        return Vectors.parse(res.body());
    }

    private static void checkWork(JsonObject v, JsonObject body) {
        assertEquals(v.getJsonNumber("hash").longValueExact(), body.getJsonNumber("hash").longValueExact(), "hash");
        assertEquals(v.getJsonNumber("workScore").longValueExact(), body.getJsonNumber("workScore").longValueExact());
        assertEquals(v.getInt("workFactor"), body.getInt("workFactor"));
        for (String key : new String[] {"input", "uppercase", "lowercase", "reversed"}) {
            if (v.containsKey(key)) {
                assertEquals(v.getString(key), body.getString(key), key);
            }
        }
        if (v.containsKey("inputLength")) {
            assertEquals(v.getInt("inputLength"), body.getString("input").length(), "input length");
        }
        assertEquals("java", body.getString("language"));
        assertEquals("virtual threads (JAX-RS)", body.getJsonObject("runtimeInfo").getString("serverModel"));
    }

    private static String encoded(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    @Test
    void everyVectorAtEveryWorkFactor() throws Exception {
        TreeSet<Integer> factors = new TreeSet<>();
        Vectors.generated().forEach(v -> factors.add(v.getInt("workFactor")));
        Vectors.strings().forEach(v -> factors.add(v.getInt("workFactor")));
        for (int wf : factors) {
            ServiceProcess server = start(wf, false, false);
            try {
                for (JsonObject v : Vectors.generated()) {
                    if (v.getInt("workFactor") == wf) {
                        checkWork(v, json(call(server, "GET", "/api/generated/" + v.getInt("size")), 200));
                    }
                }
                for (JsonObject v : Vectors.strings()) {
                    if (v.getInt("workFactor") == wf) {
                        checkWork(v, json(call(server, "GET", "/api/strings/" + encoded(v.getString("value"))), 200));
                    }
                }
            } finally {
                server.close();
            }
        }
    }

    /**
     * The largest answer (4 MB), asked for many times, arrives whole every time. Helidon 4.4.0's socket writer
     * dropped the rest of its 8 KiB buffer after a short write, so about one answer in five stalled a few KB
     * before its Content-Length (the pom takes helidon-common-socket 4.4.1, which loops); forty asks make
     * that bug fail this test all but certainly, and the fixed writer passes it every time. Each answer is
     * read whole or the read times out, so a stall is a failure here, not a hang.
     */
    @Test
    void theLargestAnswerArrivesWholeEveryTime() throws Exception {
        ServiceProcess server = start(1, false, false);
        try {
            for (int i = 0; i < 40; i++) {
                Answer answer = call(server, "GET", "/api/generated/1048576", 10_000);
                assertEquals(200, answer.statusCode(), "ask " + i);
                assertEquals(answer.headers().get("content-length"),
                             Integer.toString(answer.body().getBytes(StandardCharsets.UTF_8).length), "ask " + i);
            }
        } finally {
            server.close();
        }
    }

    @Test
    void errorsPathsHealthAndReady() throws Exception {
        ServiceProcess server = start(1, false, false);
        try {
            for (JsonObject v : Vectors.errors()) {
                String method = v.getString("method", "GET");
                Answer answer = call(server, method, v.getString("path"));
                JsonObject body = json(answer, v.getInt("status"));
                assertFalse(body.getString("error").isBlank(), method + " " + v.getString("path"));
                if (v.getInt("status") == 405) {
                    assertEquals("GET, HEAD", answer.headers().getOrDefault("allow", ""));
                }
            }
            for (JsonObject v : Vectors.root().getJsonArray("generated_paths").getValuesAs(JsonObject.class)) {
                JsonObject body = json(call(server, "GET", v.getString("path")), v.getInt("status"));
                if (v.containsKey("hash")) {
                    assertEquals(v.getJsonNumber("hash").longValueExact(), body.getJsonNumber("hash").longValueExact());
                }
            }
            JsonObject health = json(call(server, "GET", "/health"), 200);
            assertEquals("UP", health.getString("status"));
            JsonObject info = health.getJsonObject("runtimeInfo");
            assertEquals(Runtime.getRuntime().availableProcessors(), info.getInt("cpus"));
            assertTrue(info.getBoolean("virtualThread"), "the resource runs on a virtual thread");
            assertEquals("READY", json(call(server, "GET", "/ready"), 200).getString("status"));
            assertFalse(json(call(server, "GET", "/api/generated/7"), 200).getBoolean("logEnabled"));
            // metrics off: /metrics is an unknown path like any other
            assertEquals("not found", json(call(server, "GET", "/metrics"), 404).getString("error"));
        } finally {
            server.close();
        }
    }

    /** Good, bad and unknown requests: each logged once and counted once. */
    private static final List<String> MIX = List.of("/api/generated/7", "/api/generated/2048", "/api/strings/hello",
                                                     "/api/generated/0", "/nope", "/health", "/ready");
    private static final Pattern COUNT =
            Pattern.compile("(?m)^requests_total\\{endpoint=\"(\\w+)\",mp_scope=\"application\",status=\"(\\d+)\",} ([0-9.]+)$");

    @Test
    void logAndMetricsCountEveryRequestOnce() throws Exception {
        ServiceProcess server = start(1, true, true);
        try {
            int rounds = 4;
            for (int i = 0; i < rounds; i++) {
                for (String path : MIX) {
                    call(server, "GET", path);
                }
            }
            List<String> messages = server.requestLines(rounds * MIX.size());
            assertEquals(rounds * MIX.size(), messages.size(), String.join("\n", messages));
            assertTrue(messages.get(1).contains("/api/generated/2048") && messages.get(1).contains("size=2048"),
                       messages.get(1));
            Answer metrics = call(server, "GET", "/metrics");
            assertEquals(200, metrics.statusCode());
            Matcher m = COUNT.matcher(metrics.body());
            double total = 0;
            Map<String, Double> by = new TreeMap<>();
            while (m.find()) {
                double n = Double.parseDouble(m.group(3));
                total += n;
                by.merge(m.group(1) + "/" + m.group(2), n, Double::sum);
            }
            assertEquals(rounds * MIX.size(), (int) total, by + "\n" + metrics.body());
            assertEquals(2.0 * rounds, by.get("generated/200"), by.toString());
            assertEquals((double) rounds, by.get("none/404"), by.toString());
            assertEquals(rounds * MIX.size(), server.requestLines(rounds * MIX.size() + 1).size(),
                         "reading /metrics is neither logged nor counted");
        } finally {
            server.close();
        }
    }
}
