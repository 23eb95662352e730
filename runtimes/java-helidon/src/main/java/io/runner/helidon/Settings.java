package io.runner.helidon;

import java.util.Locale;
import java.util.Map;

/**
 * The service's settings from the environment (see runtimes/CONTRACT.md). Invalid values are
 * rejected, never silently defaulted.
 *
 * @param host        listen address (HOST, default 0.0.0.0)
 * @param port        listen port (PORT, default 8080; 0 = ephemeral, used by the tests)
 * @param workFactor  WORK_FACTOR, integer >= 1, default 1
 * @param logRequests LOG_REQUESTS, true/false, default false
 * @param metrics     METRICS, true/false, default false: count and time every request, serve /metrics
 * @param transport   TLS_CERT_FILE, TLS_KEY_FILE, HTTP2: TLS, h2c or plain (default)
 */
public record Settings(String host, int port, int workFactor, boolean logRequests, boolean metrics,
                       TransportSettings transport) {

    /** Plain settings without metrics (the tests' servers). */
    public Settings(String host, int port, int workFactor, boolean logRequests) {
        this(host, port, workFactor, logRequests, false);
    }

    /** Plain settings (the tests' servers). */
    public Settings(String host, int port, int workFactor, boolean logRequests, boolean metrics) {
        this(host, port, workFactor, logRequests, metrics, TransportSettings.PLAIN);
    }

    /** Thrown for an invalid setting; the message says which and why. */
    public static final class InvalidSetting extends Exception {
        public InvalidSetting(String message) {
            super(message, null, false, false);
        }
    }

    public static Settings fromEnv(Map<String, String> env) throws InvalidSetting {
        String host = env.getOrDefault("HOST", "0.0.0.0").trim();
        if (host.isEmpty()) {
            throw new InvalidSetting("HOST is empty");
        }
        int port = integer(env, "PORT", 8080, 0, 65535);
        int workFactor = integer(env, "WORK_FACTOR", 1, 1, Integer.MAX_VALUE);
        boolean log = bool(env, "LOG_REQUESTS");
        boolean metrics = bool(env, "METRICS");
        return new Settings(host, port, workFactor, log, metrics, TransportSettings.fromEnv(env));
    }

    private static int integer(Map<String, String> env, String name, int dflt, int min, int max) throws InvalidSetting {
        String raw = env.get(name);
        if (raw == null || raw.isBlank()) {
            return dflt;
        }
        long value;
        try {
            value = Long.parseLong(raw.trim());
        } catch (NumberFormatException e) {
            throw new InvalidSetting(name + "=" + raw + " is not an integer (expected " + min + ".." + max + ")");
        }
        if (value < min || value > max) {
            throw new InvalidSetting(name + "=" + raw + " is out of range (expected " + min + ".." + max + ")");
        }
        return (int) value;
    }

    private static boolean bool(Map<String, String> env, String name) throws InvalidSetting {
        String raw = env.get(name);
        if (raw == null || raw.isBlank()) {
            return false;
        }
        return switch (raw.trim().toLowerCase(Locale.ROOT)) {
            case "true", "1" -> true;
            case "false", "0" -> false;
            default -> throw new InvalidSetting(name + "=" + raw + " is not true or false");
        };
    }
}
