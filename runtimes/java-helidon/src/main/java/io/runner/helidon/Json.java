package io.runner.helidon;

import java.nio.charset.StandardCharsets;

/**
 * A minimal JSON byte writer into a pre-sized array (no growth on the hot path).
 * Strings are written from UTF-8 bytes: '"', '\\' and control bytes are escaped, everything else
 * (including multi-byte UTF-8 sequences, whose bytes are all >= 0x80) is copied as is.
 */
public final class Json {
    static final byte[] K_INPUT = ascii("{\"input\":");
    static final byte[] K_UPPERCASE = ascii(",\"uppercase\":");
    static final byte[] K_LOWERCASE = ascii(",\"lowercase\":");
    static final byte[] K_REVERSED = ascii(",\"reversed\":");
    static final byte[] K_HASH = ascii(",\"hash\":");
    static final byte[] K_WORK_FACTOR = ascii(",\"workFactor\":");
    static final byte[] K_WORK_SCORE = ascii(",\"workScore\":");

    private static final byte[] HEX = ascii("0123456789abcdef");

    private byte[] buf;
    private int length;

    Json(int capacity) {
        this.buf = new byte[capacity];
    }

    /** The buffer; the body is {@code [0, length())}. */
    public byte[] buffer() {
        return buf;
    }

    public int length() {
        return length;
    }

    public static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** How many bytes escaping adds to {@code b[off, off+len)}. */
    static int escapeExtra(byte[] b, int off, int len) {
        int extra = 0;
        for (int i = off, end = off + len; i < end; i++) {
            int c = b[i];
            if (c >= 0 && c < 0x20) {
                extra += 5;             // \\u00XX
            } else if (c == '"' || c == '\\') {
                extra += 1;
            }
        }
        return extra;
    }

    void raw(byte[] bytes) {
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, length, bytes.length);
        length += bytes.length;
    }

    /**
     * Write a JSON string from UTF-8 bytes.
     *
     * @param extra {@link #escapeExtra} of the same range (0 means: copy as is)
     */
    void string(byte[] b, int off, int len, int extra) {
        ensure(len + extra + 2);
        byte[] out = buf;
        int pos = length;
        out[pos++] = '"';
        if (extra == 0) {
            System.arraycopy(b, off, out, pos, len);
            pos += len;
        } else {
            for (int i = off, end = off + len; i < end; i++) {
                byte c = b[i];
                if (c >= 0 && c < 0x20) {
                    out[pos++] = '\\';
                    out[pos++] = 'u';
                    out[pos++] = '0';
                    out[pos++] = '0';
                    out[pos++] = HEX[c >> 4];
                    out[pos++] = HEX[c & 0xF];
                } else if (c == '"' || c == '\\') {
                    out[pos++] = '\\';
                    out[pos++] = c;
                } else {
                    out[pos++] = c;
                }
            }
        }
        out[pos++] = '"';
        length = pos;
    }

    /** Write a non-negative integer. */
    void number(long value) {
        ensure(20);
        if (value == 0) {
            buf[length++] = '0';
            return;
        }
        int digits = 0;
        for (long v = value; v > 0; v /= 10) {
            digits++;
        }
        int pos = length + digits;
        for (long v = value; v > 0; v /= 10) {
            buf[--pos] = (byte) ('0' + (v % 10));
        }
        length += digits;
    }

    /** Quote and escape a Java string (used at startup and for error bodies, not on the hot path). */
    public static String quote(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        Json j = new Json(b.length * 6 + 2);
        j.string(b, 0, b.length, escapeExtra(b, 0, b.length));
        return new String(j.buf, 0, j.length, StandardCharsets.UTF_8);
    }

    private void ensure(int more) {
        if (length + more > buf.length) {
            byte[] bigger = new byte[Math.max(buf.length * 2, length + more)];
            System.arraycopy(buf, 0, bigger, 0, length);
            buf = bigger;
        }
    }
}
