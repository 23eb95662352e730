package io.runner.helidon.mp;

import io.runner.helidon.Json;
import io.runner.helidon.Settings;
import io.runner.helidon.Work;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.Encoded;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * runtimes/CONTRACT.md as plain JAX-RS resources on Helidon MP (the 2020 study's "plain JAX-RS"): one
 * application-scoped CDI bean, one method per route. The work and its JSON are java-helidon's, so the SE
 * and MP services differ only in the framework around them. Wrong methods and unknown paths are JAX-RS's
 * own 405 and 404, answered in JSON by {@link ErrorMappers}.
 */
@Path("/")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class ContractResource {
    static final String SERVER_MODEL = "virtual threads (JAX-RS)";
    private static final byte[] READY = Json.ascii("{\"status\":\"READY\"}");
    private static final byte[] SIZE_NOT_INTEGER = Json.ascii("{\"error\":\"size must be a decimal integer\"}");
    private static final byte[] SIZE_OUT_OF_RANGE =
            Json.ascii("{\"error\":\"size must be between 1 and " + Work.MAX_SIZE + "\"}");
    private static final byte[] BAD_STRING_VALUE =
            Json.ascii("{\"error\":\"value is not valid percent-encoded UTF-8\"}");

    private int workFactor;
    private byte[] healthVirtual;
    private byte[] healthPlatform;
    private byte[] suffixVirtual;
    private byte[] suffixPlatform;

    @PostConstruct
    void init() {
        Settings settings = Current.get();
        workFactor = settings.workFactor();
        boolean log = settings.logRequests();
        healthVirtual = Json.ascii(RuntimeDescription.health(true));
        healthPlatform = Json.ascii(RuntimeDescription.health(false));
        suffixVirtual = RuntimeDescription.suffix(true, log);
        suffixPlatform = RuntimeDescription.suffix(false, log);
    }

    @GET
    @Path("health")
    public Response health() {
        return ok(Thread.currentThread().isVirtual() ? healthVirtual : healthPlatform);
    }

    @GET
    @Path("ready")
    public Response ready() {
        return ok(READY);
    }

    @GET
    @Path("api/generated/{size}")
    public Response generated(@PathParam("size") String size) {
        int n = Work.parseSize(size);
        if (n <= 0) {
            return json(Response.Status.BAD_REQUEST, n == 0 ? SIZE_NOT_INTEGER : SIZE_OUT_OF_RANGE);
        }
        return work(Work.generatedInput(n));
    }

    /** The raw segment ({@code @Encoded}) is decoded strictly: bad UTF-8 is a 400, not U+FFFD. */
    @GET
    @Path("api/strings/{value}")
    public Response strings(@Encoded @PathParam("value") String raw) {
        byte[] value = Work.percentDecodeUtf8(raw);
        if (value == null) {
            return json(Response.Status.BAD_REQUEST, BAD_STRING_VALUE);
        }
        return work(value);
    }

    private Response work(byte[] input) {
        RequestLog.inputSize(input.length);
        Json json = Work.compute(input, workFactor)
                .toJson(Thread.currentThread().isVirtual() ? suffixVirtual : suffixPlatform);
        byte[] body = java.util.Arrays.copyOf(json.buffer(), json.length());
        return ok(body);
    }

    private static Response ok(byte[] body) {
        return json(Response.Status.OK, body);
    }

    /**
     * A JSON answer with an explicit Content-Length (the contract's rule): Jersey states it for answers that fit
     * its buffer ({@link ContractApplication#BUFFER_BYTES}); a larger one carries it from here, so that Jersey
     * streams it with that length instead of switching to chunked encoding.
     */
    static Response json(Response.StatusType status, byte[] body) {
        Response.ResponseBuilder answer = Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(body);
        if (body.length > ContractApplication.BUFFER_BYTES) {
            answer.header(HttpHeaders.CONTENT_LENGTH, body.length);
        }
        return answer.build();
    }
}
