package io.runner.spring;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import com.fasterxml.jackson.databind.ObjectMapper;

/** POST /api/orders/calculate: validate ({@link JsonBodies}), price ({@link Pricing}), answer. */
@RestController
public class OrderController {
    private final JsonBodies bodies;
    private final ObjectMapper mapper;

    public OrderController(JsonBodies bodies, ObjectMapper mapper) {
        this.bodies = bodies;
        this.mapper = mapper;
    }

    @PostMapping("/api/orders/calculate")
    public ResponseEntity<byte[]> calculate(@RequestBody(required = false) byte[] body, HttpServletRequest request) {
        RequestObservation.inputSize(request, body);
        OrderRequest order = bodies.read(body, OrderRequest.class);
        return Responses.json(mapper, 200, Pricing.price(order));
    }
}
