package io.runner.helidon.mp;

import io.runner.helidon.Settings;

/**
 * The settings of the running server, set by {@link Main#start} before the CDI container starts and read by
 * the beans (CDI builds them; they cannot take constructor arguments from main).
 */
final class Current {
    private static volatile Settings settings;

    private Current() {
    }

    static void set(Settings s) {
        settings = s;
    }

    static Settings get() {
        Settings s = settings;
        if (s == null) {
            throw new IllegalStateException("helidon-mp: settings not set (start the server through Main.start)");
        }
        return s;
    }
}
