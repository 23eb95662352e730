package io.runner.spring;

import java.io.IOException;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.ElementKind;
import jakarta.validation.Path;
import jakarta.validation.Validator;

import org.springframework.stereotype.Component;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads a request body with Jackson and checks it with Bean Validation, mapping both to the contract's
 * errors (runtimes/CONTRACT.md, "Request bodies"):
 * <ul>
 * <li>not JSON at all (Jackson's {@link StreamReadException}, or trailing content) -> 400;</li>
 * <li>a field of the wrong JSON type (a {@link JsonMappingException}: coercion is off) -> 422 naming that
 * field alone (Jackson stops at the first);</li>
 * <li>value errors (constraint violations) -> 422 naming every invalid field.</li>
 * </ul>
 * The body is taken as bytes, not bound by Spring's {@code @RequestBody} to the type, because the contract
 * does not check Content-Type (Spring would answer 415 to a body without {@code application/json}).
 */
@Component
public class JsonBodies {
    private final ObjectMapper mapper;
    private final Validator validator;

    public JsonBodies(ObjectMapper mapper, Validator validator) {
        this.mapper = mapper;
        this.validator = validator;
    }

    /** Parse and validate; throws {@link BodyRejected} for a 400 or a 422. */
    public <T> T read(byte[] body, Class<T> type) {
        if (isBlank(body)) {
            // Jackson reports "no content" as a MismatchedInputException (a 422 below); it is not JSON: 400
            throw BodyRejected.malformed("the body is empty, expected a JSON object");
        }
        T value;
        try {
            value = mapper.readValue(body, type);
        } catch (JsonProcessingException e) {
            throw reject(e);
        } catch (IOException e) {
            throw BodyRejected.malformed("cannot read the body: " + e.getMessage());
        }
        if (value == null) { // the body was the JSON literal null
            throw BodyRejected.invalid(new TreeMap<>(java.util.Map.of("$", "must be an object")));
        }
        Set<ConstraintViolation<T>> violations = validator.validate(value);
        if (!violations.isEmpty()) {
            SortedMap<String, String> invalid = new TreeMap<>();
            for (ConstraintViolation<T> v : violations) {
                invalid.merge(path(v.getPropertyPath()), v.getMessage(), (a, b) -> a + "; " + b);
            }
            throw BodyRejected.invalid(invalid);
        }
        return value;
    }

    /** Empty, or only JSON whitespace (space, tab, CR, LF). */
    private static boolean isBlank(byte[] body) {
        if (body == null) {
            return true;
        }
        for (byte b : body) {
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                return false;
            }
        }
        return true;
    }

    private static BodyRejected reject(JsonProcessingException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StreamReadException && !(t instanceof InputCoercionException)) {
                return BodyRejected.malformed("not JSON: " + ((StreamReadException) t).getOriginalMessage());
            }
        }
        if (e instanceof JsonMappingException mapping) {
            if (mapping.getOriginalMessage() != null && mapping.getOriginalMessage().startsWith("Trailing token")) {
                return BodyRejected.malformed("not JSON: content after the value");
            }
            SortedMap<String, String> invalid = new TreeMap<>();
            invalid.put(path(mapping.getPath()), "wrong JSON type");
            return BodyRejected.invalid(invalid);
        }
        return BodyRejected.malformed("not JSON: " + e.getOriginalMessage());
    }

    /** Jackson's reference chain as the contract writes paths: {@code a.b}, {@code a[0]}, {@code $} for the root. */
    static String path(java.util.List<JsonMappingException.Reference> references) {
        StringBuilder out = new StringBuilder();
        for (JsonMappingException.Reference ref : references) {
            if (ref.getFieldName() != null) {
                if (!out.isEmpty()) {
                    out.append('.');
                }
                out.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                out.append('[').append(ref.getIndex()).append(']');
            }
        }
        return out.isEmpty() ? "$" : out.toString();
    }

    /**
     * A Bean Validation property path as the contract writes paths. Hibernate Validator's own
     * {@code toString} would print a container element as {@code items[0].<list element>}.
     */
    static String path(Path property) {
        StringBuilder out = new StringBuilder();
        for (Path.Node node : property) {
            if (node.isInIterable() && node.getIndex() != null) {
                out.append('[').append(node.getIndex()).append(']');
            }
            if (node.getKind() == ElementKind.PROPERTY && node.getName() != null) {
                if (!out.isEmpty()) {
                    out.append('.');
                }
                out.append(node.getName());
            }
        }
        return out.isEmpty() ? "$" : out.toString();
    }
}
