package io.runner.helidon;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * The contract's work function, done on UTF-8 bytes.
 * <p>
 * The case mappings are ASCII-only, so they map single bytes and leave every byte of a multi-byte UTF-8
 * sequence (all >= 0x80) unchanged; the reversal reverses whole UTF-8 sequences, i.e. code points. The
 * three results are laid out back to back in one array, {@code stream = uppercase | lowercase | reversed},
 * which is exactly the byte stream the work score hashes, so nothing is copied twice.
 */
public final class Work {
    /** Largest accepted {@code size} for {@code /api/generated/{size}}. */
    public static final int MAX_SIZE = 1_048_576;

    private static final byte[] HELIDON = {'H', 'e', 'l', 'i', 'd', 'o', 'n'};

    private final byte[] input;
    private final byte[] stream;
    private final long hash;
    private final long workScore;
    private final int workFactor;

    private Work(byte[] input, byte[] stream, long hash, long workScore, int workFactor) {
        this.input = input;
        this.stream = stream;
        this.hash = hash;
        this.workScore = workScore;
        this.workFactor = workFactor;
    }

    /**
     * The input of {@code /api/generated/{size}}: "Helidon" when size is 7, otherwise size times 'x'.
     *
     * @param size 1..MAX_SIZE
     * @return the UTF-8 (here ASCII) bytes of the input
     */
    /**
     * Parse {@code size}: one or more ASCII digits, value 1..MAX_SIZE (shared by the SE and MP services).
     *
     * @return the size, 0 if not a decimal integer, -1 if out of range (including overflow)
     */
    public static int parseSize(String raw) {
        int len = raw.length();
        if (len == 0) {
            return 0;
        }
        long value = 0;
        boolean tooBig = false;
        for (int i = 0; i < len; i++) {
            char c = raw.charAt(i);
            if (c < '0' || c > '9') {
                return 0;
            }
            if (!tooBig) {
                value = value * 10 + (c - '0');
                tooBig = value > MAX_SIZE;
            }
        }
        return (tooBig || value < 1) ? -1 : (int) value;
    }

    /**
     * Percent-decodes one raw path segment into bytes and checks they are valid
     * UTF-8; returns null for a malformed escape or invalid UTF-8 (a 400).
     */
    public static byte[] percentDecodeUtf8(String raw) {
        byte[] out = new byte[raw.length()];
        int n = 0;
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length()) {
                    return null;
                }
                int hi = Character.digit(raw.charAt(i + 1), 16);
                int lo = Character.digit(raw.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                out[n++] = (byte) ((hi << 4) | lo);
                i += 2;
            } else if (c < 0x80) {
                out[n++] = (byte) c;
            } else {
                return null; // a raw request line carries ASCII only
            }
        }
        byte[] bytes = Arrays.copyOf(out, n);
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
            return null;
        }
        return bytes;
    }

    public static byte[] generatedInput(int size) {
        if (size == 7) {
            return HELIDON.clone();
        }
        byte[] input = new byte[size];
        Arrays.fill(input, (byte) 'x');
        return input;
    }

    /**
     * Do the work.
     *
     * @param input      UTF-8 bytes of the input string (must be well-formed UTF-8)
     * @param workFactor how many times the stream is hashed, >= 1
     * @return the result
     */
    public static Work compute(byte[] input, int workFactor) {
        int n = input.length;
        byte[] stream = new byte[3 * n];
        for (int i = 0; i < n; i++) {
            byte b = input[i];
            stream[i] = (b >= 'a' && b <= 'z') ? (byte) (b - 32) : b;
            stream[n + i] = (b >= 'A' && b <= 'Z') ? (byte) (b + 32) : b;
        }
        // reversed: walk back from the end, one UTF-8 sequence (code point) at a time
        int out = 2 * n;
        int end = n;
        while (end > 0) {
            int start = end - 1;
            byte b = input[start];
            if (b >= 0) {
                stream[out++] = b;
            } else {
                while (start > 0 && (input[start] & 0xC0) == 0x80) {
                    start--;
                }
                int len = end - start;
                System.arraycopy(input, start, stream, out, len);
                out += len;
            }
            end = start;
        }

        CRC32 crc = new CRC32();
        crc.update(input, 0, n);
        long hash = crc.getValue();

        crc.reset();
        for (int i = 0; i < workFactor; i++) {
            crc.update(stream, 0, stream.length);
        }
        return new Work(input, stream, hash, crc.getValue(), workFactor);
    }

    public byte[] input() {
        return input;
    }

    /** The stream {@code uppercase | lowercase | reversed}; each part is {@code input().length} bytes. */
    public byte[] stream() {
        return stream;
    }

    public long hash() {
        return hash;
    }

    public long workScore() {
        return workScore;
    }

    public int workFactor() {
        return workFactor;
    }

    /**
     * Render the JSON answer.
     *
     * @param suffix the constant tail, starting with {@code ,"runtime":} and ending with the closing brace
     * @return a buffer holding the body in {@code [0, Json.length)}; see {@link Json}
     */
    public Json toJson(byte[] suffix) {
        int n = input.length;
        int extra = Json.escapeExtra(input, 0, n);
        Json json = new Json(4 * (n + extra) + 160 + suffix.length);
        json.raw(Json.K_INPUT);
        json.string(input, 0, n, extra);
        json.raw(Json.K_UPPERCASE);
        json.string(stream, 0, n, extra);
        json.raw(Json.K_LOWERCASE);
        json.string(stream, n, n, extra);
        json.raw(Json.K_REVERSED);
        json.string(stream, 2 * n, n, extra);
        json.raw(Json.K_HASH);
        json.number(hash);
        json.raw(Json.K_WORK_FACTOR);
        json.number(workFactor);
        json.raw(Json.K_WORK_SCORE);
        json.number(workScore);
        json.raw(suffix);
        return json;
    }
}
