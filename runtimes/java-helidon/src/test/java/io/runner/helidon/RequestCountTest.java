package io.runner.helidon;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.helidon.webserver.WebServer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LOG_REQUESTS=true writes exactly one log line per request and METRICS=true counts each request once on
 * /metrics (good, bad and unknown paths alike); reading /metrics is neither logged nor counted.
 */
class RequestCountTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final List<String> MIX = List.of("/api/generated/7", "/api/generated/2048", "/api/strings/hello",
                                                     "/api/generated/0", "/nope", "/health", "/ready");
    private static final Pattern COUNT = Pattern.compile(
            "(?m)^requests_total\\{endpoint=\"(\\w+)\",scope=\"application\",status=\"(\\d+)\",} ([0-9.]+)$");

    private static HttpResponse<String> get(WebServer server, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                                   .timeout(Duration.ofSeconds(30)).build(),
                           HttpResponse.BodyHandlers.ofString());
    }

    /** Counts per endpoint/status on the page (the registry is global to the JVM: compare differences). */
    private static Map<String, Double> counts(WebServer server) throws Exception {
        HttpResponse<String> page = get(server, "/metrics");
        assertEquals(200, page.statusCode(), page.body());
        Map<String, Double> by = new TreeMap<>();
        Matcher m = COUNT.matcher(page.body());
        while (m.find()) {
            by.merge(m.group(1) + "/" + m.group(2), Double.parseDouble(m.group(3)), Double::sum);
        }
        return by;
    }

    private static double total(Map<String, Double> by) {
        return by.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    @Test
    void oneLogLineAndOneCountPerRequest() throws Exception {
        Logger requests = Logger.getLogger("io.runner.helidon.requests");
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                lines.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        requests.addHandler(handler);
        WebServer server = Service.start(new Settings("127.0.0.1", 0, 1, true, true));
        try {
            Map<String, Double> before = counts(server);
            int rounds = 4;
            for (int i = 0; i < rounds; i++) {
                for (String path : MIX) {
                    get(server, path);
                }
            }
            Map<String, Double> after = counts(server);
            assertEquals(rounds * MIX.size(), lines.size(), String.join("\n", lines));
            assertTrue(lines.get(1).contains("/api/generated/2048") && lines.get(1).contains("size=2048"), lines.get(1));
            assertEquals(rounds * MIX.size(), (int) (total(after) - total(before)), before + " -> " + after);
            assertEquals(2.0 * rounds, after.get("generated/200") - before.getOrDefault("generated/200", 0.0));
            assertEquals((double) rounds, after.get("none/404") - before.getOrDefault("none/404", 0.0));
            assertEquals(rounds * MIX.size(), lines.size(), "reading /metrics is not logged");
        } finally {
            server.stop();
            requests.removeHandler(handler);
        }
    }

    @Test
    void withoutMetricsTheMetricsPathIsAnUnknownPath() throws Exception {
        WebServer server = Service.start(new Settings("127.0.0.1", 0, 1, false, false));
        try {
            HttpResponse<String> page = get(server, "/metrics");
            assertEquals(404, page.statusCode());
            assertEquals("{\"error\":\"not found\"}", page.body());
        } finally {
            server.stop();
        }
    }
}
