package io.runner.spring;

import java.util.SortedMap;

/**
 * A request body the contract rejects: 400 (not JSON at all) or 422 (JSON of the wrong shape or with invalid
 * values, {@code invalid} holding the field paths in byte order). Answered by {@link ErrorAdvice}.
 */
public final class BodyRejected extends RuntimeException {
    private final int status;
    private final SortedMap<String, String> invalid;

    private BodyRejected(int status, String message, SortedMap<String, String> invalid) {
        super(message, null, false, false);
        this.status = status;
        this.invalid = invalid;
    }

    static BodyRejected malformed(String why) {
        return new BodyRejected(400, why, null);
    }

    /** @param invalid field path -> what is wrong with it, sorted by path */
    static BodyRejected invalid(SortedMap<String, String> invalid) {
        return new BodyRejected(422, "validation failed", invalid);
    }

    public int status() {
        return status;
    }

    /** The invalid fields (422 only; null for a 400). */
    public SortedMap<String, String> invalidFields() {
        return invalid;
    }
}
