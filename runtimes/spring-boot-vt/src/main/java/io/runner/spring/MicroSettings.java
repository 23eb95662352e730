package io.runner.spring;

import java.util.Map;
import java.util.Optional;

import io.runner.helidon.Settings.InvalidSetting;

/**
 * The microservices part of the contract's environment (runtimes/CONTRACT.md, "Microservices"):
 * the database, its pool and the three downstreams. Invalid values stop the service at start, as an
 * invalid WORK_FACTOR does; unset URLs are not errors (the endpoints that need them answer 503).
 *
 * @param database          DATABASE_URL converted to JDBC, empty when unset
 * @param poolSize          DB_POOL_SIZE, connections held from start to end (minimum = maximum), default 20
 * @param downstreams       the three base URLs, empty unless all three are set
 * @param downstreamTimeout DOWNSTREAM_TIMEOUT_MS, the deadline of the whole fan-out, default 1000
 */
public record MicroSettings(Optional<DatabaseUrl> database, int poolSize, Optional<Downstreams> downstreams,
                            int downstreamTimeout) {

    /** Base URLs of the fan-out's downstreams, without a trailing slash. */
    public record Downstreams(String profile, String orders, String recommendations) {
    }

    public static MicroSettings fromEnv(Map<String, String> env) throws InvalidSetting {
        String rawUrl = env.get("DATABASE_URL");
        Optional<DatabaseUrl> database = Optional.empty();
        if (rawUrl != null && !rawUrl.isBlank()) {
            database = Optional.of(DatabaseUrl.parse(rawUrl.trim()));
        }
        int poolSize = positive(env, "DB_POOL_SIZE", 20);
        int timeout = positive(env, "DOWNSTREAM_TIMEOUT_MS", 1000);
        String profile = baseUrl(env, "PROFILE_URL");
        String orders = baseUrl(env, "ORDERS_URL");
        String recommendations = baseUrl(env, "RECOMMENDATIONS_URL");
        Optional<Downstreams> downstreams = Optional.empty();
        if (profile != null && orders != null && recommendations != null) {
            downstreams = Optional.of(new Downstreams(profile, orders, recommendations));
        }
        return new MicroSettings(database, poolSize, downstreams, timeout);
    }

    private static String baseUrl(Map<String, String> env, String name) {
        String raw = env.get(name);
        if (raw == null || raw.isBlank()) {
            return null;
        }
        String url = raw.trim();
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    private static int positive(Map<String, String> env, String name, int dflt) throws InvalidSetting {
        String raw = env.get(name);
        if (raw == null || raw.isBlank()) {
            return dflt;
        }
        String value = raw.trim();
        if (!value.matches("[0-9]{1,9}") || Integer.parseInt(value) < 1) {
            throw new InvalidSetting(name + "=" + raw + " is not an integer >= 1");
        }
        return Integer.parseInt(value);
    }
}
