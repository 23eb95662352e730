package io.runner.helidon;

import io.helidon.logging.common.LogConfig;
import io.helidon.webserver.WebServer;

/**
 * Entry point: read the environment, start the server. Helidon registers a JVM shutdown hook that
 * stops the server, so SIGTERM ends the process cleanly (which a Leyden AOT training run relies on).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        // JUL configuration from logging.properties on the class path (one line per record)
        LogConfig.configureRuntime();

        Settings settings;
        try {
            settings = Settings.fromEnv(System.getenv());
            if (settings.transport().tls()) {
                Transport.tls(settings.transport()); // a bad chain or key: exit 2 before anything starts
            }
        } catch (Settings.InvalidSetting e) {
            System.err.println("java-helidon: invalid setting: " + e.getMessage());
            System.exit(2);
            return;
        }

        WebServer server;
        try {
            server = Service.start(settings);
        } catch (RuntimeException e) {
            System.err.println("java-helidon: cannot start the server on " + settings.host() + ":" + settings.port()
                                       + ": " + e);
            System.exit(1);
            return;
        }
        if (!server.isRunning() || server.port() <= 0) {
            // Helidon logs the cause (e.g. address already in use) and returns a stopped server
            System.err.println("java-helidon: cannot start the server on " + settings.host() + ":" + settings.port()
                                       + " (see the log above)");
            System.exit(1);
            return;
        }
        TransportSettings transport = settings.transport();
        System.out.println("java-helidon listening on " + (transport.tls() ? "https" : "http") + "://"
                                   + settings.host() + ":" + server.port()
                                   + " (WORK_FACTOR=" + settings.workFactor()
                                   + ", LOG_REQUESTS=" + settings.logRequests()
                                   + ", tls " + transport.tlsName() + ", protocols " + transport.protocols()
                                   + ", runtime " + Service.runtimeVersion()
                                   + ", availableProcessors " + Runtime.getRuntime().availableProcessors() + ")");
    }
}
