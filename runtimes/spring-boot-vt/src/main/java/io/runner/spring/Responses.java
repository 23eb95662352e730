package io.runner.spring;

import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Every answer as bytes with an explicit Content-Length. Spring MVC's Jackson converter streams into
 * Tomcat's response buffer, and Tomcat falls back to chunked encoding for a body larger than that buffer
 * (8 KiB); the contract wants Content-Length on every answer, so bodies are serialised first.
 */
public final class Responses {
    private Responses() {
    }

    static ResponseEntity<byte[]> json(int status, byte[] body) {
        return ResponseEntity.status(HttpStatusCode.valueOf(status))
                .contentType(MediaType.APPLICATION_JSON)
                .contentLength(body.length)
                .body(body);
    }

    static ResponseEntity<byte[]> json(ObjectMapper mapper, int status, Object value) {
        try {
            return json(status, mapper.writeValueAsBytes(value));
        } catch (JsonProcessingException e) {
            // our own answer types always serialise; this would be a programming error
            throw new IllegalStateException("cannot serialise the answer", e);
        }
    }

    /** {@code {"error": why}}. */
    static ResponseEntity<byte[]> error(ObjectMapper mapper, int status, String why) {
        ObjectNode body = mapper.createObjectNode().put("error", why);
        return json(mapper, status, body);
    }
}
