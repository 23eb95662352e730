package io.runner.spring;

import java.util.Arrays;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.runner.helidon.Json;
import io.runner.helidon.Settings;
import io.runner.helidon.Work;

/**
 * The endpoints of the contract's top part: /health, /ready, /api/generated/{size}, /api/strings/{value}.
 * The work is java-helidon's {@link Work} (the same bytes for every JVM service). GET mappings answer HEAD
 * too (Spring MVC), other methods are a 405 ({@link ErrorAdvice}).
 */
@RestController
public class ContractController {
    private static final byte[] READY = Json.ascii("{\"status\":\"READY\"}");
    private static final String STRINGS_PREFIX = "/api/strings/";

    private final RuntimeDescription runtime;
    private final ObjectMapper mapper;
    private final int workFactor;

    public ContractController(RuntimeDescription runtime, ObjectMapper mapper, Settings settings) {
        this.runtime = runtime;
        this.mapper = mapper;
        this.workFactor = settings.workFactor();
    }

    @GetMapping("/health")
    public ResponseEntity<byte[]> health() {
        return Responses.json(200, runtime.health(Thread.currentThread().isVirtual()));
    }

    @GetMapping("/ready")
    public ResponseEntity<byte[]> ready() {
        return Responses.json(200, READY);
    }

    /** {@code size} arrives percent-decoded; {@link Work#parseSize} checks its characters before the value. */
    @GetMapping("/api/generated/{size}")
    public ResponseEntity<byte[]> generated(@PathVariable("size") String size, HttpServletRequest request) {
        int n = Work.parseSize(size);
        if (n == 0) {
            return Responses.error(mapper, 400, "size must be a decimal integer");
        }
        if (n < 0) {
            return Responses.error(mapper, 400, "size must be between 1 and " + Work.MAX_SIZE);
        }
        return work(Work.generatedInput(n), request);
    }

    /**
     * The value is decoded here from the raw request URI, not taken from Spring's decoded path variable:
     * Spring replaces invalid UTF-8 with U+FFFD silently, and the contract wants a 400 for it.
     */
    @GetMapping("/api/strings/{value}")
    public ResponseEntity<byte[]> strings(HttpServletRequest request) {
        String uri = request.getRequestURI();
        String raw = uri.substring(uri.indexOf(STRINGS_PREFIX) + STRINGS_PREFIX.length());
        byte[] input = Work.percentDecodeUtf8(raw);
        if (input == null) {
            return Responses.error(mapper, 400, "value is not valid UTF-8 after percent-decoding");
        }
        return work(input, request);
    }

    private ResponseEntity<byte[]> work(byte[] input, HttpServletRequest request) {
        RequestObservation.inputSize(request, input.length);
        Json json = Work.compute(input, workFactor).toJson(runtime.workSuffix(Thread.currentThread().isVirtual()));
        return Responses.json(200, Arrays.copyOf(json.buffer(), json.length()));
    }
}
