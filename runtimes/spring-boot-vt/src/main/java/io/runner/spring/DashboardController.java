package io.runner.spring;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import jakarta.annotation.PreDestroy;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * GET /api/dashboard/{userId}: the profile, orders and recommendations downstreams called in parallel
 * ({@link FanOut}, one virtual thread each) under one DOWNSTREAM_TIMEOUT_MS deadline, aggregated; a failed
 * downstream is a 502 naming it.
 * <p>
 * The client is the JDK's {@link HttpClient} on HTTP/1.1: it pools keep-alive connections per host by itself
 * (no extra dependency, unlike Apache HttpClient or Reactor Netty), and its blocking {@code send} parks a
 * virtual thread instead of holding a platform thread. Its own asynchronous work runs on virtual threads too.
 */
@RestController
public class DashboardController {
    private final ObjectMapper mapper;
    private final MicroSettings settings;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpClient client;

    public DashboardController(ObjectMapper mapper, MicroSettings settings) {
        this.mapper = mapper;
        this.settings = settings;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofMillis(settings.downstreamTimeout()))
                .executor(executor)
                .build();
    }

    @PreDestroy
    void close() {
        client.shutdownNow();
        executor.shutdownNow();
    }

    @GetMapping("/api/dashboard/{userId}")
    public ResponseEntity<byte[]> dashboard(@PathVariable("userId") String rawUserId) {
        long userId = Ids.id(rawUserId);
        if (userId < 0) {
            return Responses.error(mapper, 404, "user not found");
        }
        if (settings.downstreams().isEmpty()) {
            return Responses.error(mapper, 503, "no downstreams configured");
        }
        MicroSettings.Downstreams urls = settings.downstreams().get();
        long timeout = settings.downstreamTimeout();
        List<JsonNode> answers;
        try {
            answers = FanOut.all(executor, List.of(
                    call("profile", urls.profile() + "/profile/" + userId, timeout),
                    call("orders", urls.orders() + "/orders/" + userId, timeout),
                    call("recommendations", urls.recommendations() + "/recommendations/" + userId, timeout)),
                    timeout);
        } catch (FanOut.Failed e) {
            ObjectNode body = mapper.createObjectNode()
                    .put("error", "downstream failed")
                    .put("downstream", e.callName())
                    .put("reason", e.getMessage());
            return Responses.json(mapper, 502, body);
        }
        JsonNode profile = answers.get(0);
        JsonNode orders = answers.get(1).get("orders");
        long spent = 0;
        for (JsonNode order : orders) {
            spent += order.get("totalCents").longValue();
        }
        ObjectNode body = mapper.createObjectNode();
        body.put("userId", userId);
        body.set("profile", profile);
        body.set("recentOrders", orders);
        body.put("orderCount", orders.size());
        body.put("totalSpentCents", spent);
        body.set("recommendations", answers.get(2).get("items"));
        return Responses.json(mapper, 200, body);
    }

    private FanOut.Call<JsonNode> call(String name, String url, long timeoutMillis) {
        return new FanOut.Call<>(name, () -> fetch(name, url, timeoutMillis));
    }

    private JsonNode fetch(String name, String url, long timeoutMillis) throws FanOut.Failed, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofMillis(timeoutMillis))
                .GET()
                .build();
        HttpResponse<byte[]> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (HttpTimeoutException e) {
            throw new FanOut.Failed(name, "timeout after " + timeoutMillis + " ms");
        } catch (IOException e) {
            throw new FanOut.Failed(name, "cannot reach " + url + ": " + e);
        }
        if (response.statusCode() < 200 || response.statusCode() > 299) {
            throw new FanOut.Failed(name, "status " + response.statusCode());
        }
        JsonNode body;
        try {
            body = mapper.readTree(response.body());
        } catch (IOException e) {
            throw new FanOut.Failed(name, "body is not JSON");
        }
        if (!expected(name, body)) {
            throw new FanOut.Failed(name, "body is not the expected JSON");
        }
        return body;
    }

    /** The shape the aggregate relies on: an object; orders' {@code orders[].totalCents}; {@code items[]}. */
    private static boolean expected(String name, JsonNode body) {
        if (body == null || !body.isObject()) {
            return false;
        }
        return switch (name) {
            case "orders" -> body.get("orders") instanceof ArrayNode orders
                    && allHaveIntegerTotal(orders);
            case "recommendations" -> body.get("items") instanceof ArrayNode;
            default -> true;
        };
    }

    private static boolean allHaveIntegerTotal(ArrayNode orders) {
        for (JsonNode order : orders) {
            JsonNode total = order.get("totalCents");
            if (total == null || !total.isIntegralNumber() || !total.canConvertToLong()) {
                return false;
            }
        }
        return true;
    }
}
