package io.runner.helidon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * How the service serves PORT, as the environment says (runtimes/CONTRACT.md, "TLS and HTTP/2"): plain
 * HTTP/1.1, TLS offering h2 and http/1.1 by ALPN (TLS_CERT_FILE and TLS_KEY_FILE, read here), or h2c
 * beside HTTP/1.1 (HTTP2=h2c). Plain JDK, no Helidon type: spring-boot-vt and helidon-mp compile
 * {@link Settings} (and so this) from java-helidon's sources; {@link Transport} makes Helidon's Tls of it.
 *
 * @param certFile TLS_CERT_FILE, or null: no TLS
 * @param keyFile  TLS_KEY_FILE, or null
 * @param certPem  the certificate chain's bytes, read at start
 * @param keyPem   the private key's bytes, read at start
 * @param h2c      HTTP/2 by prior knowledge (and Upgrade) on the plain port
 */
public record TransportSettings(String certFile, String keyFile, byte[] certPem, byte[] keyPem, boolean h2c) {
    /** Plain HTTP/1.1. */
    public static final TransportSettings PLAIN = new TransportSettings(null, null, null, null, false);

    /**
     * Read TLS_CERT_FILE, TLS_KEY_FILE and HTTP2, and the files now, so that a half-configured or
     * unreadable TLS setup stops the service at start instead of serving plain HTTP by default.
     */
    static TransportSettings fromEnv(Map<String, String> env) throws Settings.InvalidSetting {
        String certFile = env.getOrDefault("TLS_CERT_FILE", "");
        String keyFile = env.getOrDefault("TLS_KEY_FILE", "");
        String http2 = env.getOrDefault("HTTP2", "");
        if (!http2.isEmpty() && !http2.equals("h2c")) {
            throw new Settings.InvalidSetting("HTTP2=" + http2 + " is not h2c (HTTP/2 over TLS needs no setting)");
        }
        if (certFile.isEmpty() && keyFile.isEmpty()) {
            return new TransportSettings(null, null, null, null, !http2.isEmpty());
        }
        String both = "TLS_CERT_FILE=" + certFile + ", TLS_KEY_FILE=" + keyFile;
        if (certFile.isEmpty() || keyFile.isEmpty()) {
            throw new Settings.InvalidSetting(both + ": set both or neither");
        }
        if (!http2.isEmpty()) {
            throw new Settings.InvalidSetting("HTTP2=h2c with TLS_CERT_FILE=" + certFile
                                                      + ": h2c is HTTP/2 without TLS");
        }
        return new TransportSettings(certFile, keyFile, read("TLS_CERT_FILE", certFile),
                                     read("TLS_KEY_FILE", keyFile), false);
    }

    /** Whether PORT serves TLS. */
    public boolean tls() {
        return certFile != null;
    }

    private static byte[] read(String name, String file) throws Settings.InvalidSetting {
        try {
            return Files.readAllBytes(Path.of(file));
        } catch (IOException | RuntimeException e) {
            throw new Settings.InvalidSetting(name + "=" + file + ": cannot read it (" + e + ")");
        }
    }

    /** runtimeInfo.tls: JSSE, the JDK's TLS, with the JDK's version (JSSE has none of its own). */
    String tlsName() {
        return tls() ? "JSSE" : "off";
    }

    /** runtimeInfo.protocols. */
    List<String> protocols() {
        if (tls()) {
            return List.of("h2", "http/1.1");
        }
        return h2c ? List.of("h2c", "http/1.1") : List.of("http/1.1");
    }
}
