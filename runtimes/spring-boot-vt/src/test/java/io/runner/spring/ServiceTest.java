package io.runner.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The real service (Spring MVC on Tomcat, one Spring context for the whole run) on a random 127.0.0.1 port,
 * checked over HTTP/1.1 against the shared vectors: every orders vector always; the products and dashboard
 * vectors when runtimes/contract/test-deps.sh has exported TEST_DATABASE_URL and the TEST_*_URL stubs
 * (otherwise those tests say they are skipped and check the 503 of an unconfigured service instead).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"WORK_FACTOR=10", "METRICS=true", "LOG_REQUESTS=false", "HOST=127.0.0.1",
                "DOWNSTREAM_TIMEOUT_MS=1000"})
class ServiceTest {
    private static final Map<String, String> ENV = System.getenv();
    private static final int WORK_FACTOR = 10;
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void dependencies(DynamicPropertyRegistry registry) {
        copy(registry, "TEST_DATABASE_URL", "DATABASE_URL");
        copy(registry, "TEST_PROFILE_URL", "PROFILE_URL");
        copy(registry, "TEST_ORDERS_URL", "ORDERS_URL");
        copy(registry, "TEST_RECOMMENDATIONS_URL", "RECOMMENDATIONS_URL");
    }

    private static void copy(DynamicPropertyRegistry registry, String from, String to) {
        String value = ENV.get(from);
        if (value != null && !value.isBlank()) {
            registry.add(to, () -> value);
        }
    }

    private static boolean databaseSet() {
        return ENV.get("TEST_DATABASE_URL") != null;
    }

    private static boolean downstreamsSet() {
        return ENV.get("TEST_PROFILE_URL") != null && ENV.get("TEST_ORDERS_URL") != null
                && ENV.get("TEST_RECOMMENDATIONS_URL") != null;
    }

    HttpResponse<String> call(String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (!method.equals("HEAD")) {
            // every answer is framed by Content-Length (no chunked encoding)
            assertEquals(String.valueOf(response.body().getBytes(StandardCharsets.UTF_8).length),
                    response.headers().firstValue("Content-Length").orElse("none"), method + " " + path);
        }
        return response;
    }

    /** The orders vectors: 200 bodies compared whole, 422s by their sorted invalid list, 400s by status. */
    @TestFactory
    Stream<DynamicTest> orders() {
        return Vectors.list(Vectors.microservices().get("orders")).stream().map(v -> DynamicTest.dynamicTest(
                "POST /api/orders/calculate " + v.get("name").asText(), () -> {
                    HttpResponse<String> r = call("POST", "/api/orders/calculate", v.get("body").asText());
                    checkAnswer(v, r);
                }));
    }

    private static void checkAnswer(JsonNode v, HttpResponse<String> r) {
        String name = v.get("name").asText();
        assertEquals(v.get("status").asInt(), r.statusCode(), name + ": " + r.body());
        JsonNode body = Vectors.tree(r.body());
        JsonNode expected = v.get("response");
        if (expected == null) {
            assertTrue(body.get("error").isTextual(), name + ": error bodies are {\"error\": ...}: " + r.body());
        } else if (r.statusCode() == 422) {
            assertEquals(expected.get("invalid"), body.get("invalid"), name);
            assertEquals("validation failed", body.get("error").asText(), name);
        } else if (r.statusCode() == 200 || r.statusCode() == 201) {
            assertEquals(expected, body, name);
        } else {
            expected.fields().forEachRemaining(f -> assertEquals(f.getValue(), body.get(f.getKey()), name));
        }
    }

    @Test
    void ordersIgnoreContentTypeAndRejectOtherMethods() throws Exception {
        String body = Vectors.microservices().get("orders").get(0).get("body").asText();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/orders/calculate"))
                .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        assertEquals(200, CLIENT.send(request, HttpResponse.BodyHandlers.ofString()).statusCode());
        assertEquals(405, call("GET", "/api/orders/calculate", null).statusCode());
        assertEquals(400, call("POST", "/api/orders/calculate", "{} {}").statusCode(), "two JSON values");
        assertEquals(422, call("POST", "/api/orders/calculate", "null").statusCode(), "the literal null");
    }

    /**
     * Bodies beyond the vectors, with the invalid lists microservices.py's answer() gives them: a null
     * line (a type error, alone), integers past 64 bits (a range error), 1e2 (a fraction), "" for an
     * object, a number for the discount code, -0 (the integer 0).
     */
    @Test
    void edgeCasesAgreeWithTheReference() throws Exception {
        String head = "{\"orderId\":\"ORD-1\",\"customer\":{\"id\":\"C-1\",\"region\":\"EU\"},\"items\":";
        Map<String, String> cases = Map.of(
                head + "[null,{\"sku\":\"b\",\"quantity\":1,\"unitPriceCents\":1}]}", "items[0]",
                head + "[{\"sku\":\"A\",\"quantity\":100000000000000000000000000000,\"unitPriceCents\":1}]}",
                "items[0].quantity",
                head + "[{\"sku\":\"A\",\"quantity\":1e2,\"unitPriceCents\":1}]}", "items[0].quantity",
                "{\"orderId\":\"ORD-1\",\"customer\":\"\",\"items\":[{\"sku\":\"A\",\"quantity\":1,\"unitPriceCents\":1}]}",
                "customer",
                head + "[{\"sku\":\"A\",\"quantity\":1,\"unitPriceCents\":1,\"discountCode\":5}]}",
                "items[0].discountCode",
                head + "[{\"sku\":\"A\",\"quantity\":-0,\"unitPriceCents\":1}]}", "items[0].quantity");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            HttpResponse<String> r = call("POST", "/api/orders/calculate", c.getKey());
            assertEquals(422, r.statusCode(), c.getKey() + " -> " + r.body());
            assertEquals("[\"" + c.getValue() + "\"]", Vectors.tree(r.body()).get("invalid").toString(), c.getKey());
        }
    }

    @Test
    void healthReportsTheVirtualThreadItRanOn() throws Exception {
        HttpResponse<String> r = call("GET", "/health", null);
        assertEquals(200, r.statusCode());
        JsonNode info = Vectors.tree(r.body()).get("runtimeInfo");
        assertTrue(info.get("virtualThread").asBoolean(), r.body());
        assertEquals("virtual threads", info.get("serverModel").asText());
        assertEquals(Runtime.getRuntime().availableProcessors(), info.get("cpus").asInt());
        assertEquals("{\"status\":\"READY\"}", call("GET", "/ready", null).body());
    }

    @TestFactory
    Stream<DynamicTest> work() {
        JsonNode root = Vectors.contract();
        Stream<DynamicTest> generated = Vectors.list(root.get("generated")).stream()
                .filter(v -> v.get("workFactor").asInt() == WORK_FACTOR)
                .map(v -> DynamicTest.dynamicTest("GET /api/generated/" + v.get("size").asInt(),
                        () -> checkWork(v, call("GET", "/api/generated/" + v.get("size").asInt(), null))));
        Stream<DynamicTest> strings = Vectors.list(root.get("strings")).stream()
                .filter(v -> v.get("workFactor").asInt() == WORK_FACTOR)
                .map(v -> {
                    String path = "/api/strings/" + URLEncoder.encode(v.get("value").asText(), StandardCharsets.UTF_8);
                    return DynamicTest.dynamicTest("GET " + path, () -> checkWork(v, call("GET", path, null)));
                });
        Stream<DynamicTest> errors = Vectors.list(root.get("errors")).stream()
                .map(v -> DynamicTest.dynamicTest(v.path("method").asText("GET") + " " + v.get("path").asText(),
                        () -> {
                            HttpResponse<String> r = call(v.path("method").asText("GET"), v.get("path").asText(), null);
                            assertEquals(v.get("status").asInt(), r.statusCode(), r.body());
                            assertTrue(Vectors.tree(r.body()).get("error").isTextual(), r.body());
                            if (r.statusCode() != 400) {
                                // Tomcat closes the connection after a 400 (its statusDropsConnection
                                // rule, see README); a 404 or 405 keeps it open
                                assertFalse(r.headers().firstValue("Connection").orElse("").equals("close"));
                            }
                        }));
        Stream<DynamicTest> paths = Vectors.list(root.get("generated_paths")).stream()
                .map(v -> DynamicTest.dynamicTest("GET " + v.get("path").asText(), () -> {
                    HttpResponse<String> r = call("GET", v.get("path").asText(), null);
                    assertEquals(v.get("status").asInt(), r.statusCode());
                    JsonNode body = Vectors.tree(r.body());
                    if (v.has("input")) {
                        assertEquals(v.get("input"), body.get("input"));
                        assertEquals(v.get("hash"), body.get("hash"));
                    } else {
                        assertEquals(v.get("inputLength").asInt(), body.get("input").asText().length());
                    }
                }));
        return Stream.of(generated, strings, errors, paths).flatMap(s -> s);
    }

    private static void checkWork(JsonNode v, HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.body());
        JsonNode body = Vectors.tree(r.body());
        // the long vectors carry inputLength instead of the strings; compare what the vector has, and
        // without printing a megabyte of 'x' when it differs
        for (String field : List.of("input", "uppercase", "lowercase", "reversed")) {
            if (v.has(field)) {
                assertTrue(v.get(field).equals(body.get(field)), field + " differs");
            }
        }
        if (v.has("inputLength")) {
            assertEquals(v.get("inputLength").asInt(), body.get("input").asText().length(), "input length");
        }
        for (String field : List.of("hash", "workScore", "workFactor")) {
            assertEquals(v.get(field).asLong(), body.get(field).asLong(), field);
        }
        assertTrue(body.get("runtimeInfo").get("virtualThread").asBoolean());
    }

    /** Every request is counted by route and status; reading /metrics is not. */
    @Test
    void metricsCountEveryRequestButTheirOwn() throws Exception {
        double before = ready200(call("GET", "/metrics", null).body());
        for (int i = 0; i < 3; i++) {
            call("GET", "/ready", null);
        }
        String after = call("GET", "/metrics", null).body();
        assertEquals(before + 3, ready200(after), after);
        assertFalse(after.contains("route=\"/metrics\""), after);
        assertTrue(after.contains("http_request_duration_seconds_count{route=\"/ready\",status=\"200\"}"), after);
    }

    private static double ready200(String metrics) {
        return metrics.lines()
                .filter(l -> l.startsWith("http_requests_total{route=\"/ready\",status=\"200\"}"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst().orElse(0);
    }

    /** The products vectors, in order, on a freshly reseeded table (test-deps.sh reset). */
    @Test
    void products() throws Exception {
        if (!databaseSet()) {
            System.out.println("SKIPPED products vectors: TEST_DATABASE_URL is not set "
                    + "(eval \"$(../contract/test-deps.sh start DIR)\" first); checking the 503 instead");
            HttpResponse<String> r = call("GET", "/api/products/1", null);
            assertEquals(503, r.statusCode());
            assertEquals("no database configured", Vectors.tree(r.body()).get("error").asText());
            return;
        }
        reseed();
        for (JsonNode v : Vectors.list(Vectors.microservices().get("products"))) {
            String body = v.hasNonNull("body") ? v.get("body").asText() : null;
            checkAnswer(v, call(v.get("method").asText(), v.get("path").asText(), body));
        }
        reseed();
    }

    private static void reseed() throws Exception {
        String dir = ENV.get("TEST_DEPS_DIR");
        assumeTrue(dir != null, "TEST_DEPS_DIR (exported by test-deps.sh) names the folder to reset");
        Process p = new ProcessBuilder(Path.of("../contract/test-deps.sh").toString(), "reset", dir)
                .inheritIO().start();
        assertEquals(0, p.waitFor(), "test-deps.sh reset " + dir);
    }

    /** The dashboard vectors; the 502 of the hanging profile comes at the deadline, not after 30 s. */
    @Test
    void dashboard() throws Exception {
        if (!downstreamsSet()) {
            System.out.println("SKIPPED dashboard vectors: TEST_PROFILE_URL, TEST_ORDERS_URL and "
                    + "TEST_RECOMMENDATIONS_URL are not set; checking the 503 instead");
            assertEquals(503, call("GET", "/api/dashboard/42", null).statusCode());
            return;
        }
        for (JsonNode v : Vectors.list(Vectors.microservices().get("dashboard").get("cases"))) {
            long start = System.nanoTime();
            HttpResponse<String> r = call(v.path("method").asText("GET"), v.get("path").asText(), null);
            long millis = (System.nanoTime() - start) / 1_000_000;
            checkAnswer(v, r);
            // the hanging stub answers after 30 s; the deadline is 1 s (bound wide for a busy host)
            assertTrue(millis < 15_000, v.get("name").asText() + " took " + millis + " ms");
        }
    }
}
