package io.runner.helidon;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;

import io.helidon.common.configurable.Resource;
import io.helidon.common.pki.Keys;
import io.helidon.common.tls.Tls;

/**
 * Helidon's TLS for a start that serves it ({@link TransportSettings#tls()}): the key and the certificate
 * chain parsed from their PEM, the key checked against the chain's first certificate.
 */
final class Transport {
    private Transport() {
    }

    /** The server's TLS; an invalid chain or key, or a key that is not the certificate's, is refused. */
    static Tls tls(TransportSettings t) throws Settings.InvalidSetting {
        String certFile = t.certFile();
        String keyFile = t.keyFile();
        byte[] certPem = t.certPem();
        byte[] keyPem = t.keyPem();
        String both = "TLS_CERT_FILE=" + certFile + ", TLS_KEY_FILE=" + keyFile;
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
        return Tls.builder().privateKey(key).privateKeyCertChain(chain).build();
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

}
