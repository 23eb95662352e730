package io.runner.spring;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerMapping;

import io.runner.helidon.Settings;

/**
 * LOG_REQUESTS and METRICS, as one servlet filter around every request: with LOG_REQUESTS=true one line per
 * request through SLF4J/Logback (Spring Boot's logger; logger {@code io.runner.spring.requests}) with the
 * method, path, status, input size and elapsed time; with METRICS=true the request counted and timed in
 * {@link RequestMetrics} by route (the matched pattern) and status. /metrics itself is neither.
 * With both off the filter passes the request on and does nothing else.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE)
public class RequestObservation extends OncePerRequestFilter {
    private static final Logger REQUESTS = LoggerFactory.getLogger("io.runner.spring.requests");
    private static final String INPUT_SIZE = RequestObservation.class.getName() + ".inputSize";

    private final boolean log;
    private final RequestMetrics metrics;

    public RequestObservation(Settings settings, ObjectProvider<RequestMetrics> metrics) {
        this.log = settings.logRequests();
        this.metrics = metrics.getIfAvailable();
    }

    /** Record the input size of this request: a body's bytes. */
    static void inputSize(HttpServletRequest request, byte[] body) {
        inputSize(request, body == null ? 0 : body.length);
    }

    /** Record the input size of this request (the work's input bytes; 0 when not recorded). */
    static void inputSize(HttpServletRequest request, int size) {
        request.setAttribute(INPUT_SIZE, size);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if ((!log && metrics == null) || RequestMetrics.PATH.equals(request.getRequestURI())) {
            chain.doFilter(request, response);
            return;
        }
        long start = System.nanoTime();
        try {
            chain.doFilter(request, response);
        } finally {
            long nanos = System.nanoTime() - start;
            int status = response.getStatus();
            Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
            String route = pattern == null ? "unmatched" : pattern.toString();
            if (metrics != null) {
                metrics.record(route, status, nanos);
            }
            if (log) {
                Object size = request.getAttribute(INPUT_SIZE);
                REQUESTS.info("{} {} status={} size={} elapsed_us={}", request.getMethod(), request.getRequestURI(),
                        status, size == null ? 0 : size, nanos / 1000);
            }
        }
    }
}
