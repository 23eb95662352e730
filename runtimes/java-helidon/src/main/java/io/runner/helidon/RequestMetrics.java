package io.runner.helidon;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import io.helidon.metrics.api.Counter;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.metrics.api.Metrics;
import io.helidon.metrics.api.Tag;
import io.helidon.metrics.api.Timer;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.metrics.MetricsObserver;
import io.helidon.webserver.spi.ServerFeature;

/**
 * METRICS=true: every request counted ({@code requests}) and timed ({@code request.duration}) per endpoint
 * and status in Helidon's metrics registry, served on {@code GET /metrics} by Helidon's metrics observer
 * (Prometheus text format). The meters of each endpoint and status are looked up once and kept, so a request
 * costs an increment and a timer update, not a registry lookup.
 */
final class RequestMetrics {
    private final MeterRegistry registry = Metrics.globalRegistry();
    private final ConcurrentHashMap<String, Meters> meters = new ConcurrentHashMap<>();

    private record Meters(Counter requests, Timer duration) {
    }

    /** The observe feature serving the registry on /metrics (not itself counted: it is not a route of ours). */
    static ServerFeature observeFeature() {
        return ObserveFeature.just(MetricsObserver.builder().endpoint("/metrics").build());
    }

    /** Paths the observer serves (reading them is not a request of the contract, so not counted). */
    static boolean isMetricsPath(String path) {
        return path.equals("/metrics") || path.startsWith("/metrics/");
    }

    void record(String endpoint, int status, long nanos) {
        Meters m = meters.computeIfAbsent(endpoint + ' ' + status, key -> {
            List<Tag> tags = List.of(Tag.create("endpoint", endpoint), Tag.create("status", Integer.toString(status)));
            return new Meters(registry.getOrCreate(Counter.builder("requests").tags(tags)),
                              registry.getOrCreate(Timer.builder("request.duration").tags(tags)));
        });
        m.requests().increment();
        m.duration().record(Duration.ofNanos(nanos));
    }
}
