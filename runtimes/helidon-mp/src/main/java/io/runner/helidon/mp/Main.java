package io.runner.helidon.mp;

import io.helidon.logging.common.LogConfig;
import io.helidon.microprofile.server.Server;

import io.runner.helidon.Settings;

/**
 * Entry point: read the environment (the contract's settings, plus METRICS), start Helidon MP (CDI
 * container, JAX-RS resources on the Helidon WebServer). Helidon registers a shutdown hook, so SIGTERM
 * stops the server cleanly.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        LogConfig.configureRuntime();
        Settings settings;
        try {
            settings = Settings.fromEnv(System.getenv());
        } catch (Settings.InvalidSetting e) {
            System.err.println("helidon-mp: invalid setting: " + e.getMessage());
            System.exit(2);
            return;
        }
        Server server;
        try {
            server = start(settings);
        } catch (RuntimeException e) {
            System.err.println("helidon-mp: cannot start the server on " + settings.host() + ":"
                                       + settings.port() + ": " + e);
            System.exit(1);
            return;
        }
        System.out.println("helidon-mp listening on http://" + settings.host() + ":" + server.port()
                                   + " (WORK_FACTOR=" + settings.workFactor()
                                   + ", LOG_REQUESTS=" + settings.logRequests()
                                   + ", METRICS=" + settings.metrics()
                                   + ", runtime " + Runtime.version() + ")");
    }

    /**
     * Start the MP server with these settings (the tests start it on port 0). One MP server runs per JVM at a
     * time: stop it before starting another.
     */
    public static Server start(Settings settings) {
        Current.set(settings);
        // Helidon's metrics feature is switched by config: with METRICS=false there is no registry
        // work and no /metrics endpoint, as in a service built without metrics.
        System.setProperty("metrics.enabled", Boolean.toString(settings.metrics()));
        return Server.builder()
                .host(settings.host())
                .port(settings.port())
                .build()
                .start();
    }
}
