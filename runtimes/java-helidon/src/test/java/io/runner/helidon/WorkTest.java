package io.runner.helidon;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Stream;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The work function against every vector, without HTTP. */
class WorkTest {

    @TestFactory
    Stream<DynamicTest> generatedVectors() {
        return Vectors.generated().stream().map(v -> DynamicTest.dynamicTest(
                "generated size=" + v.getInt("size") + " workFactor=" + v.getInt("workFactor"),
                () -> check(v, Work.compute(Work.generatedInput(v.getInt("size")), v.getInt("workFactor")))));
    }

    @TestFactory
    Stream<DynamicTest> stringVectors() {
        return Vectors.strings().stream().map(v -> DynamicTest.dynamicTest(
                "strings value=" + v.getString("value") + " workFactor=" + v.getInt("workFactor"),
                () -> check(v, Work.compute(v.getString("value").getBytes(StandardCharsets.UTF_8),
                                            v.getInt("workFactor")))));
    }

    static void check(JsonObject v, Work w) {
        int n = w.input().length;
        String input = utf8(w.input(), 0, n);
        if (v.containsKey("inputLength")) {
            assertEquals(v.getInt("inputLength"), input.length(), "inputLength");
        }
        assertEquals(v.getJsonNumber("hash").longValue(), w.hash(), "hash");
        assertEquals(v.getJsonNumber("workScore").longValue(), w.workScore(), "workScore");
        assertEquals(v.getInt("workFactor"), w.workFactor(), "workFactor");
        expect(v, "input", input);
        expect(v, "uppercase", utf8(w.stream(), 0, n));
        expect(v, "lowercase", utf8(w.stream(), n, n));
        expect(v, "reversed", utf8(w.stream(), 2 * n, n));
        // the JSON rendering parses back to the same values
        Json json = w.toJson(Json.ascii("}"));
        JsonObject parsed = Vectors.parse(utf8(json.buffer(), 0, json.length()));
        assertEquals(input, parsed.getString("input"));
        assertEquals(utf8(w.stream(), 0, n), parsed.getString("uppercase"));
        assertEquals(utf8(w.stream(), n, n), parsed.getString("lowercase"));
        assertEquals(utf8(w.stream(), 2 * n, n), parsed.getString("reversed"));
        assertEquals(w.hash(), parsed.getJsonNumber("hash").longValueExact());
        assertEquals(w.workScore(), parsed.getJsonNumber("workScore").longValueExact());
    }

    private static void expect(JsonObject v, String key, String actual) {
        if (v.containsKey(key)) {
            assertEquals(v.getString(key), actual, key);
        }
    }

    private static String utf8(byte[] b, int off, int len) {
        return new String(b, off, len, StandardCharsets.UTF_8);
    }

    @Test
    void helidonByHand() {
        // CONTRACT.md: hash("Helidon") = 2951479431; CRC-32("HELIDONhelidonnodileH") = 3584129939
        Work w = Work.compute(Work.generatedInput(7), 1);
        assertEquals("HELIDONhelidonnodileH", utf8(w.stream(), 0, w.stream().length));
        assertEquals(2951479431L, w.hash());
        assertEquals(3584129939L, w.workScore());
    }

    @Test
    void reversesCodePointsNotBytesOrUtf16Units() {
        String s = "a\uD83D\uDE00b\u00e9\u20ac";     // a, U+1F600 (surrogate pair), b, e-acute, euro
        Work w = Work.compute(s.getBytes(StandardCharsets.UTF_8), 1);
        int n = w.input().length;
        assertEquals(new StringBuilder(s).reverse().toString(), utf8(w.stream(), 2 * n, n));
        assertEquals("A\uD83D\uDE00B\u00e9\u20ac", utf8(w.stream(), 0, n));
    }

    @Test
    void escapesJsonSpecials() {
        String s = "q\"b\\n\n\t\u0001/\u007f";
        Work w = Work.compute(s.getBytes(StandardCharsets.UTF_8), 1);
        Json json = w.toJson(Json.ascii("}"));
        JsonObject parsed = Vectors.parse(utf8(json.buffer(), 0, json.length()));
        assertEquals(s, parsed.getString("input"));
        assertEquals("Q\"B\\N\n\t\u0001/\u007f", parsed.getString("uppercase"));
        assertEquals(new StringBuilder(s).reverse().toString(), parsed.getString("reversed"));
    }

    @Test
    void parseSize() {
        assertEquals(1, Service.parseSize("1"));
        assertEquals(7, Service.parseSize("007"));
        assertEquals(1_048_576, Service.parseSize("1048576"));
        assertEquals(-1, Service.parseSize("1048577"));
        assertEquals(-1, Service.parseSize("0"));
        assertEquals(-1, Service.parseSize("99999999999999999999"));
        assertEquals(0, Service.parseSize("abc"));
        assertEquals(0, Service.parseSize("-1"));
        assertEquals(0, Service.parseSize("+5"));
        assertEquals(0, Service.parseSize("1.5"));
        assertEquals(0, Service.parseSize(" 5"));
        assertEquals(0, Service.parseSize(""));
        assertEquals(0, Service.parseSize("\u0661"));   // a non-ASCII digit
    }

    @Test
    void settings() throws Exception {
        Settings d = Settings.fromEnv(Map.of());
        assertEquals(8080, d.port());
        assertEquals(1, d.workFactor());
        assertFalse(d.logRequests());
        assertFalse(d.metrics());
        Settings s = Settings.fromEnv(Map.of("PORT", "9000", "WORK_FACTOR", "10", "LOG_REQUESTS", "true",
                                             "METRICS", "1"));
        assertTrue(s.metrics());
        assertEquals(9000, s.port());
        assertEquals(10, s.workFactor());
        assertTrue(s.logRequests());
        for (Map<String, String> bad : new Map[] {
                Map.of("WORK_FACTOR", "0"), Map.of("WORK_FACTOR", "abc"), Map.of("WORK_FACTOR", "-3"),
                Map.of("WORK_FACTOR", "99999999999"), Map.of("PORT", "x"), Map.of("PORT", "70000"),
                Map.of("LOG_REQUESTS", "maybe"), Map.of("METRICS", "on")}) {
            assertThrows(Settings.InvalidSetting.class, () -> Settings.fromEnv(bad), bad.toString());
        }
    }
}
