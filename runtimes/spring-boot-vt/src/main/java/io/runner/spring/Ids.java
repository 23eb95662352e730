package io.runner.spring;

import java.util.regex.Pattern;

/** The contract's canonical ids and query integers: ASCII digits, no sign, no leading zero, at most 18 digits. */
final class Ids {
    private static final Pattern CANONICAL_ID = Pattern.compile("[1-9][0-9]{0,17}");
    private static final Pattern CANONICAL_INTEGER = Pattern.compile("0|[1-9][0-9]{0,17}");

    private Ids() {
    }

    /** The id, or -1 when {@code raw} is not a canonical id (a 404). */
    static long id(String raw) {
        return raw != null && CANONICAL_ID.matcher(raw).matches() ? Long.parseLong(raw) : -1;
    }

    /** A canonical non-negative integer, or -1. */
    static long integer(String raw) {
        return raw != null && CANONICAL_INTEGER.matcher(raw).matches() ? Long.parseLong(raw) : -1;
    }
}
