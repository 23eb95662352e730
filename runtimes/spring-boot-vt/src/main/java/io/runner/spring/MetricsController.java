package io.runner.spring;

import java.nio.charset.StandardCharsets;

import org.springframework.context.annotation.Conditional;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** GET /metrics (METRICS=true only; otherwise the 404 of any unknown path): the Prometheus text format. */
@RestController
@Conditional(RequestMetrics.MetricsOn.class)
public class MetricsController {
    private static final MediaType PROMETHEUS_TEXT = MediaType.parseMediaType("text/plain; version=0.0.4; charset=utf-8");

    private final RequestMetrics metrics;

    public MetricsController(RequestMetrics metrics) {
        this.metrics = metrics;
    }

    @GetMapping(RequestMetrics.PATH)
    public ResponseEntity<byte[]> metrics() {
        byte[] body = metrics.scrape().getBytes(StandardCharsets.UTF_8);
        return ResponseEntity.ok().contentType(PROMETHEUS_TEXT).contentLength(body.length).body(body);
    }
}
