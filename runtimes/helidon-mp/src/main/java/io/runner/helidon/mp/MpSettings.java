package io.runner.helidon.mp;

import java.util.Locale;
import java.util.Map;

import io.runner.helidon.Settings;

/**
 * The contract's settings (java-helidon's {@link Settings}: HOST, PORT, WORK_FACTOR, LOG_REQUESTS) plus
 * METRICS, true/false, default false. Invalid values are rejected, never silently defaulted.
 */
public record MpSettings(Settings base, boolean metrics) {

    public static MpSettings fromEnv(Map<String, String> env) throws Settings.InvalidSetting {
        Settings base = Settings.fromEnv(env);
        String raw = env.get("METRICS");
        boolean metrics = false;
        if (raw != null && !raw.isBlank()) {
            metrics = switch (raw.trim().toLowerCase(Locale.ROOT)) {
                case "true", "1" -> true;
                case "false", "0" -> false;
                default -> throw invalid("METRICS=" + raw + " is not true or false");
            };
        }
        return new MpSettings(base, metrics);
    }

    private static Settings.InvalidSetting invalid(String message) {
        return new Settings.InvalidSetting(message);
    }
}
