package io.runner.spring;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.stereotype.Component;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * METRICS=true: a Micrometer Prometheus registry counting ({@code http_requests_total{route,status}}) and
 * timing ({@code http_request_duration_seconds{route,status}}) every request, the names go-nethttp and
 * rust-axum use. Served on GET /metrics by {@link MetricsController}. The registry is ours, not Actuator's:
 * Actuator would add its own endpoints, meters and filter to every request. The meters of each route and
 * status are looked up once and kept.
 */
@Component
@Conditional(RequestMetrics.MetricsOn.class)
public class RequestMetrics {
    static final String PATH = "/metrics";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ConcurrentHashMap<String, Meters> meters = new ConcurrentHashMap<>();

    private record Meters(Counter requests, Timer duration) {
    }

    /** METRICS is true (or 1), read as {@link io.runner.helidon.Settings} reads it. */
    static final class MetricsOn implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String raw = context.getEnvironment().getProperty("METRICS", "false").trim();
            return raw.equalsIgnoreCase("true") || raw.equals("1");
        }
    }

    void record(String route, int status, long nanos) {
        String code = Integer.toString(status);
        Meters m = meters.computeIfAbsent(route + ' ' + code, key -> new Meters(
                Counter.builder("http.requests").tag("route", route).tag("status", code).register(registry),
                Timer.builder("http.request.duration").tag("route", route).tag("status", code).register(registry)));
        m.requests().increment();
        m.duration().record(nanos, TimeUnit.NANOSECONDS);
    }

    /** The Prometheus text format of every meter. */
    String scrape() {
        return registry.scrape();
    }
}
