package io.runner.helidon.mp;

import java.lang.System.Logger.Level;
import java.time.Duration;

import io.runner.helidon.Settings;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.ext.Provider;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/**
 * Per-request logging (LOG_REQUESTS: one java.util.logging line per request, as the study's Helidon
 * services logged) and metrics (METRICS: a MicroProfile Metrics counter and timer per endpoint and status,
 * on Helidon's /metrics). A pre-matching filter sees every request, unknown paths and wrong methods too, so
 * each is logged and counted exactly once.
 */
@Provider
@PreMatching
@Priority(1)
@ApplicationScoped
public class RequestLog implements ContainerRequestFilter, ContainerResponseFilter {
    private static final System.Logger LOG = System.getLogger("io.runner.helidon.mp.requests");
    private static final String START = "runner.start";
    /** The resource runs on the request's thread (synchronous JAX-RS): it reports the input size here. */
    private static final ThreadLocal<int[]> INPUT_SIZE = ThreadLocal.withInitial(() -> new int[1]);

    @Inject
    MetricRegistry registry;

    @Context
    ResourceInfo resource;

    private boolean log;
    private boolean metrics;

    @PostConstruct
    void init() {
        Settings settings = Current.get();
        log = settings.logRequests();
        metrics = settings.metrics();
    }

    /** Helidon's own /metrics (relative path as JAX-RS gives it): not a contract request, never counted. */
    static boolean isMetricsPath(String relative) {
        return relative.equals("metrics") || relative.startsWith("metrics/");
    }

    static void inputSize(int bytes) {
        INPUT_SIZE.get()[0] = bytes;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        if ((log || metrics) && !isMetricsPath(request.getUriInfo().getPath())) {
            request.setProperty(START, System.nanoTime());
            INPUT_SIZE.get()[0] = 0;
        }
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (!log && !metrics) {
            return;
        }
        Object start = request.getProperty(START);
        if (start == null) {
            return; // a /metrics request passing through Jersey
        }
        long nanos = System.nanoTime() - (Long) start;
        int status = response.getStatus();
        if (log) {
            LOG.log(Level.INFO, request.getMethod() + " " + request.getUriInfo().getRequestUri().getRawPath()
                    + " status=" + status + " size=" + INPUT_SIZE.get()[0] + " elapsed_us=" + nanos / 1_000);
        }
        if (metrics) {
            String endpoint = resource != null && resource.getResourceMethod() != null
                    ? resource.getResourceMethod().getName() : "none";
            Tag[] tags = {new Tag("endpoint", endpoint), new Tag("status", Integer.toString(status))};
            registry.counter("requests", tags).inc();
            registry.timer("request.duration", tags).update(Duration.ofNanos(nanos));
        }
    }
}
