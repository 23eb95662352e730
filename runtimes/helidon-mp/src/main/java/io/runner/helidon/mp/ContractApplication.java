package io.runner.helidon.mp;

import java.util.Map;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/**
 * The JAX-RS application: its resources and providers, and Jersey's outbound buffer raised to 8 MiB, so that
 * Jersey buffers every answer (the largest, /api/generated/1048576, is about 4.2 MB) and sends it with a
 * Content-Length it computed itself, as the contract asks, instead of switching to chunked encoding after
 * the default 8 KiB.
 */
@ApplicationScoped
@ApplicationPath("/")
public class ContractApplication extends Application {
    static final int BUFFER_BYTES = 8 << 20;

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(ContractResource.class, RequestLog.class, ErrorMappers.NotFound.class,
                      ErrorMappers.NotAllowed.class);
    }

    @Override
    public Map<String, Object> getProperties() {
        return Map.of("jersey.config.server.contentLength.buffer", BUFFER_BYTES);
    }
}
