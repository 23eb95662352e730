package io.runner.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.runner.helidon.Settings.InvalidSetting;

/** DATABASE_URL's conversion to JDBC and the microservices settings' defaults and rejections. */
class SettingsTest {

    @Test
    void libpqUriBecomesJdbcUrlAndCredentials() throws Exception {
        DatabaseUrl url = DatabaseUrl.parse("postgresql://bench:s%40cr+t@127.0.0.1:5433/bench?sslmode=disable");
        assertEquals("jdbc:postgresql://127.0.0.1:5433/bench?sslmode=disable", url.jdbcUrl());
        assertEquals("bench", url.user());
        assertEquals("s@cr+t", url.password());
        assertEquals("jdbc:postgresql://db/x", DatabaseUrl.parse("postgres://db/x").jdbcUrl());
        assertEquals("", DatabaseUrl.parse("postgres://db/x").user());
        assertTrue(!url.toString().contains("cr+t"), "toString never shows the password");
    }

    @Test
    void badDatabaseUrlsAreRejected() {
        assertThrows(InvalidSetting.class, () -> DatabaseUrl.parse("mysql://u@h/db"));
        assertThrows(InvalidSetting.class, () -> DatabaseUrl.parse("postgresql://u@h"));
        assertThrows(InvalidSetting.class, () -> DatabaseUrl.parse("postgresql:///db"));
        assertThrows(InvalidSetting.class, () -> DatabaseUrl.parse("postgresql://h:port/db"));
    }

    @Test
    void defaultsAndUnsetUrls() throws Exception {
        MicroSettings s = MicroSettings.fromEnv(Map.of());
        assertEquals(20, s.poolSize());
        assertEquals(1000, s.downstreamTimeout());
        assertTrue(s.database().isEmpty());
        assertTrue(s.downstreams().isEmpty());
        // two of three downstreams is no fan-out
        assertTrue(MicroSettings.fromEnv(Map.of("PROFILE_URL", "http://a", "ORDERS_URL", "http://b"))
                .downstreams().isEmpty());
        MicroSettings all = MicroSettings.fromEnv(Map.of("PROFILE_URL", "http://a/", "ORDERS_URL", "http://b",
                "RECOMMENDATIONS_URL", "http://c", "DB_POOL_SIZE", "5", "DOWNSTREAM_TIMEOUT_MS", "250"));
        assertEquals("http://a", all.downstreams().orElseThrow().profile());
        assertEquals(5, all.poolSize());
        assertEquals(250, all.downstreamTimeout());
    }

    @Test
    void invalidNumbersStopTheService() {
        for (String bad : new String[] {"0", "-1", "abc", "1.5", "9999999999"}) {
            assertThrows(InvalidSetting.class, () -> MicroSettings.fromEnv(Map.of("DB_POOL_SIZE", bad)), bad);
            assertThrows(InvalidSetting.class, () -> MicroSettings.fromEnv(Map.of("DOWNSTREAM_TIMEOUT_MS", bad)), bad);
        }
    }

    @Test
    void canonicalIds() {
        assertEquals(42, Ids.id("42"));
        for (String bad : new String[] {"0", "007", "-1", "+1", "abc", "1234567890123456789", "", " 1"}) {
            assertEquals(-1, Ids.id(bad), bad);
        }
        assertEquals(0, Ids.integer("0"));
        assertEquals(-1, Ids.integer("00"));
    }

    @Test
    void shareRoundsHalfUp() {
        assertEquals(1, Pricing.share(5, 10, 100));     // 0.5 -> 1
        assertEquals(0, Pricing.share(4, 10, 100));     // 0.4 -> 0
        assertEquals(1, Pricing.share(7, 725, 10_000)); // 0.5075 -> 1
        assertEquals(0, Pricing.share(1, 725, 10_000)); // 0.0725 -> 0
    }
}
