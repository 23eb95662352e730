package io.runner.helidon.mp;

import io.runner.helidon.Json;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** JAX-RS's own 404 and 405, answered with the contract's JSON bodies (and Allow on a 405). */
final class ErrorMappers {
    private static final byte[] NOT_FOUND = Json.ascii("{\"error\":\"not found\"}");
    private static final byte[] METHOD_NOT_ALLOWED = Json.ascii("{\"error\":\"method not allowed\"}");

    private ErrorMappers() {
    }

    /**
     * Helidon passes a request on to its other routes (the observe feature's /metrics) only when Jersey's
     * 404 has no entity, so with METRICS=true paths under /metrics keep the bare 404.
     */
    @Provider
    public static final class NotFound implements ExceptionMapper<NotFoundException> {
        @Context
        UriInfo uri;

        @Override
        public Response toResponse(NotFoundException e) {
            if (Current.get().metrics() && uri != null && RequestLog.isMetricsPath(uri.getPath())) {
                return Response.status(Response.Status.NOT_FOUND).build();
            }
            return ContractResource.json(Response.Status.NOT_FOUND, NOT_FOUND);
        }
    }

    @Provider
    public static final class NotAllowed implements ExceptionMapper<NotAllowedException> {
        @Override
        public Response toResponse(NotAllowedException e) {
            return Response.fromResponse(ContractResource.json(Response.Status.METHOD_NOT_ALLOWED, METHOD_NOT_ALLOWED))
                    .header("Allow", "GET, HEAD")
                    .build();
        }
    }
}
