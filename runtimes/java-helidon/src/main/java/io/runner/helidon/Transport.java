package io.runner.helidon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;

import io.helidon.common.configurable.Resource;
import io.helidon.common.pki.Keys;
import io.helidon.common.tls.Tls;

/**
 * How the service serves PORT (runtimes/CONTRACT.md, "TLS and HTTP/2"): plain HTTP/1.1, TLS offering h2
 * and http/1.1 by ALPN (TLS_CERT_FILE and TLS_KEY_FILE), or h2c beside HTTP/1.1 (HTTP2=h2c).
 *
 * @param tls the server's TLS (its key and certificate chain), or null: no TLS
 * @param h2c HTTP/2 by prior knowledge (and Upgrade) on the plain port
 */
public record Transport(Tls tls, boolean h2c) {
    /** Plain HTTP/1.1. */
    public static final Transport PLAIN = new Transport(null, false);

    /**
     * Read TLS_CERT_FILE, TLS_KEY_FILE and HTTP2 and load the key pair now, so that a half-configured or
     * unreadable TLS setup stops the service at start instead of serving plain HTTP by default.
     */
    static Transport fromEnv(Map<String, String> env) throws Settings.InvalidSetting {
        String certFile = env.getOrDefault("TLS_CERT_FILE", "");
        String keyFile = env.getOrDefault("TLS_KEY_FILE", "");
        String http2 = env.getOrDefault("HTTP2", "");
        if (!http2.isEmpty() && !http2.equals("h2c")) {
            throw new Settings.InvalidSetting("HTTP2=" + http2 + " is not h2c (HTTP/2 over TLS needs no setting)");
        }
        if (certFile.isEmpty() && keyFile.isEmpty()) {
            return new Transport(null, !http2.isEmpty());
        }
        String both = "TLS_CERT_FILE=" + certFile + ", TLS_KEY_FILE=" + keyFile;
        if (certFile.isEmpty() || keyFile.isEmpty()) {
            throw new Settings.InvalidSetting(both + ": set both or neither");
        }
        if (!http2.isEmpty()) {
            throw new Settings.InvalidSetting("HTTP2=h2c with TLS_CERT_FILE=" + certFile
                                                      + ": h2c is HTTP/2 without TLS");
        }
        byte[] certPem = read("TLS_CERT_FILE", certFile);
        byte[] keyPem = read("TLS_KEY_FILE", keyFile);
        List<X509Certificate> chain;
        PrivateKey key;
        try {
            chain = Keys.builder()
                    .pem(pem -> pem.certChain(Resource.create("TLS_CERT_FILE " + certFile, certPem)))
                    .build()
                    .certChain();
        } catch (RuntimeException e) {
            throw new Settings.InvalidSetting("TLS_CERT_FILE=" + certFile + ": not a PEM certificate chain: " + e);
        }
        try {
            key = Keys.builder()
                    .pem(pem -> pem.key(Resource.create("TLS_KEY_FILE " + keyFile, keyPem)))
                    .build()
                    .privateKey()
                    .orElseThrow(() -> new IllegalArgumentException("no private key in it"));
        } catch (RuntimeException e) {
            throw new Settings.InvalidSetting("TLS_KEY_FILE=" + keyFile + ": not a PEM (PKCS#8) private key: " + e);
        }
        if (chain.isEmpty()) {
            throw new Settings.InvalidSetting("TLS_CERT_FILE=" + certFile + ": no certificate in it");
        }
        if (!matches(key, chain.getFirst())) {
            throw new Settings.InvalidSetting(both + ": the key is not the first certificate's");
        }
        return new Transport(Tls.builder().privateKey(key).privateKeyCertChain(chain).build(), false);
    }

    private static byte[] read(String name, String file) throws Settings.InvalidSetting {
        try {
            return Files.readAllBytes(Path.of(file));
        } catch (IOException | RuntimeException e) {
            throw new Settings.InvalidSetting(name + "=" + file + ": cannot read it (" + e + ")");
        }
    }

    /**
     * Whether key signs what the certificate's public key verifies. JSSE itself would only fail at the
     * first handshake, which is after a benchmark has started.
     */
    private static boolean matches(PrivateKey key, X509Certificate cert) {
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448, EdDSA sign by their own name
        };
        byte[] probe = "runner TLS key check".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(cert.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false; // a key of another type than the certificate's is a mismatch too
        }
    }

    /** runtimeInfo.tls: JSSE, the JDK's TLS, with the JDK's version (JSSE has none of its own). */
    String tlsName() {
        return tls == null ? "off" : "JSSE";
    }

    /** runtimeInfo.protocols. */
    List<String> protocols() {
        if (tls != null) {
            return List.of("h2", "http/1.1");
        }
        return h2c ? List.of("h2c", "http/1.1") : List.of("http/1.1");
    }
}
