package io.runner.helidon.mp;

import java.util.Map;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/**
 * The JAX-RS application: its resources and providers, and Jersey's outbound buffer stated at its default
 * 8 KiB. Jersey allocates that buffer whole for every answer ({@code CommittingOutputStream.enableBuffering}
 * does {@code new ByteArrayOutputStream(bufferSize)}), so it must stay small: an earlier 8 MiB buffer (to
 * buffer even the 4.2 MB answer of /api/generated/1048576) made every 300-byte answer allocate 8 MiB, a
 * humongous object for G1, and held this service to about 1,200 req/s at 1.8 cores, 70 times below Helidon
 * SE. Answers that fit are buffered and given their Content-Length by Jersey; larger ones get it from
 * {@link ContractResource#json}.
 */
@ApplicationScoped
@ApplicationPath("/")
public class ContractApplication extends Application {
    static final int BUFFER_BYTES = 8 << 10;

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
