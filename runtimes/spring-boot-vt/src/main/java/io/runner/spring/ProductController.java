package io.runner.spring;

import java.util.Optional;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * CRUD on products (runtimes/CONTRACT.md, "CRUD on products"). A database error or a pool that gives no
 * connection within 5 s surfaces as a Spring data-access or transaction exception and is a 503 in
 * {@link ErrorAdvice}.
 */
@RestController
public class ProductController {
    private static final int MAX_LIMIT = 100;
    private static final long MAX_OFFSET = 1_000_000;

    private final ProductStore store;
    private final JsonBodies bodies;
    private final ObjectMapper mapper;

    public ProductController(ProductStore store, JsonBodies bodies, ObjectMapper mapper) {
        this.store = store;
        this.bodies = bodies;
        this.mapper = mapper;
    }

    @PostMapping("/api/products")
    public ResponseEntity<byte[]> create(@RequestBody(required = false) byte[] body, HttpServletRequest request) {
        RequestObservation.inputSize(request, body);
        ProductBody product = bodies.read(body, ProductBody.class);
        if (!store.configured()) {
            return noDatabase();
        }
        return Responses.json(mapper, 201, store.create(product));
    }

    @GetMapping("/api/products/{id}")
    public ResponseEntity<byte[]> read(@PathVariable("id") String rawId) {
        long id = Ids.id(rawId);
        if (id < 0) {
            return notFound();
        }
        if (!store.configured()) {
            return noDatabase();
        }
        return found(store.read(id));
    }

    /** The body is checked first: an invalid body is a 400/422 even for an absent id. */
    @PutMapping("/api/products/{id}")
    public ResponseEntity<byte[]> update(@PathVariable("id") String rawId,
                                         @RequestBody(required = false) byte[] body, HttpServletRequest request) {
        RequestObservation.inputSize(request, body);
        ProductBody product = bodies.read(body, ProductBody.class);
        long id = Ids.id(rawId);
        if (id < 0) {
            return notFound();
        }
        if (!store.configured()) {
            return noDatabase();
        }
        return found(store.update(id, product));
    }

    @GetMapping("/api/products")
    public ResponseEntity<byte[]> list(@RequestParam(name = "limit", required = false) String rawLimit,
                                       @RequestParam(name = "offset", required = false) String rawOffset) {
        long limit = rawLimit == null ? 20 : Ids.integer(rawLimit);
        if (limit < 1 || limit > MAX_LIMIT) {
            return Responses.error(mapper, 400, "limit must be an integer from 1 to " + MAX_LIMIT);
        }
        long offset = rawOffset == null ? 0 : Ids.integer(rawOffset);
        if (offset < 0 || offset > MAX_OFFSET) {
            return Responses.error(mapper, 400, "offset must be an integer from 0 to " + MAX_OFFSET);
        }
        if (!store.configured()) {
            return noDatabase();
        }
        return Responses.json(mapper, 200,
                new ProductView.Page(store.page((int) limit, offset), limit, offset));
    }

    private ResponseEntity<byte[]> found(Optional<ProductView> product) {
        return product.map(p -> Responses.json(mapper, 200, p)).orElseGet(this::notFound);
    }

    private ResponseEntity<byte[]> notFound() {
        return Responses.error(mapper, 404, "product not found");
    }

    private ResponseEntity<byte[]> noDatabase() {
        return Responses.error(mapper, 503, "no database configured");
    }
}
