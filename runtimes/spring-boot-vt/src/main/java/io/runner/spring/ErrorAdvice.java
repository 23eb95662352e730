package io.runner.spring;

import java.util.Set;
import java.util.stream.Collectors;

import jakarta.persistence.PersistenceException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.TransactionException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.NoHandlerFoundException;
import org.springframework.web.servlet.resource.NoResourceFoundException;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The contract's error answers for what the controllers throw and what Spring MVC rejects before them:
 * 400/422 bodies, 404 for unknown paths, 405 for known paths with another method, 503 for the database.
 * Nothing here logs a stack trace per request.
 */
@RestControllerAdvice
public class ErrorAdvice {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorAdvice.class);

    private final ObjectMapper mapper;

    public ErrorAdvice(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** 400 {@code {"error"}} or 422 {@code {"error", "invalid", "details"}}. */
    @ExceptionHandler(BodyRejected.class)
    public ResponseEntity<byte[]> body(BodyRejected e) {
        if (e.status() == 400) {
            return Responses.error(mapper, 400, e.getMessage());
        }
        ObjectNode body = mapper.createObjectNode().put("error", "validation failed");
        e.invalidFields().keySet().forEach(body.putArray("invalid")::add);
        ObjectNode details = body.putObject("details");
        e.invalidFields().forEach(details::put);
        return Responses.json(mapper, 422, body);
    }

    @ExceptionHandler({NoHandlerFoundException.class, NoResourceFoundException.class})
    public ResponseEntity<byte[]> notFound(Exception e) {
        return Responses.error(mapper, 404, "not found");
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    public ResponseEntity<byte[]> methodNotAllowed(HttpRequestMethodNotSupportedException e) {
        ResponseEntity<byte[]> answer = Responses.error(mapper, 405, "method not allowed");
        Set<HttpMethod> allowed = e.getSupportedHttpMethods();
        if (allowed == null || allowed.isEmpty()) {
            return answer;
        }
        String allow = allowed.stream().map(HttpMethod::name).sorted().collect(Collectors.joining(", "));
        return ResponseEntity.status(answer.getStatusCode()).headers(answer.getHeaders())
                .header(HttpHeaders.ALLOW, allow).body(answer.getBody());
    }

    /**
     * A database that is down, a pool that gave no connection within its 5 s connectionTimeout (Spring's
     * CannotCreateTransactionException, or a DataAccessResourceFailureException), or any SQL error.
     * One WARN line with the reason, no stack trace.
     */
    @ExceptionHandler({DataAccessException.class, TransactionException.class, PersistenceException.class})
    public ResponseEntity<byte[]> database(Exception e) {
        LOG.warn("database unavailable: {}", e.getMessage());
        return Responses.error(mapper, 503, "database unavailable");
    }
}
