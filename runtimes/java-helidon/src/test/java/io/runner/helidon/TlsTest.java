package io.runner.helidon;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import io.helidon.webserver.WebServer;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TLS and HTTP/2 (CONTRACT.md, "TLS and HTTP/2"): the server over HTTPS/1.1 and h2 (ALPN) with a run-style
 * certificate made by ../contract/tls-certs.sh (openssl) in a temporary folder, the client trusting only its
 * CA; h2c beside HTTP/1.1; and the real Main refusing a half-configured transport at start.
 */
class TlsTest {
    private static final Path CERTS = Path.of("../contract/tls-certs.sh");

    @TempDir
    static Path dir;
    @TempDir
    static Path other;
    private static SSLContext trustTestCa;

    @BeforeAll
    static void certificates() throws Exception {
        makeCerts(dir);
        makeCerts(other); // another key pair: its key does not match dir's certificate
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(dir.resolve("ca.pem"))) {
            trust.setCertificateEntry("test-ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        trustTestCa = SSLContext.getInstance("TLS");
        trustTestCa.init(null, tmf.getTrustManagers(), null);
    }

    private static void makeCerts(Path into) throws Exception {
        Process p = new ProcessBuilder(CERTS.toString(), into.toString()).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "tls-certs.sh within 60 s");
        assertEquals(0, p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static Map<String, String> tlsEnv() {
        return Map.of("TLS_CERT_FILE", dir.resolve("cert.pem").toString(),
                      "TLS_KEY_FILE", dir.resolve("key.pem").toString());
    }

    private static WebServer start(Map<String, String> env) throws Settings.InvalidSetting {
        Map<String, String> all = new HashMap<>(env);
        all.put("HOST", "127.0.0.1");
        all.put("PORT", "0");
        return Service.start(Settings.fromEnv(all));
    }

    private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build();
        HttpResponse<String> res = client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertEquals(200, res.statusCode(), url + ": " + res.body());
        return res;
    }

    /** /health's transport fields and the first strings vector, each answered over version. */
    private static void checkContract(HttpClient client, String base, HttpClient.Version version, String tls,
                                      List<String> protocols) throws Exception {
        HttpResponse<String> health = get(client, base + "/health");
        assertEquals(version, health.version(), "/health");
        JsonObject info = Vectors.parse(health.body()).getJsonObject("runtimeInfo");
        assertEquals(tls, info.getString("tls"));
        assertEquals(protocols, info.getJsonArray("protocols").getValuesAs(JsonString::getString));
        JsonObject v = Vectors.strings().stream()
                .filter(s -> s.getInt("workFactor") == 1)
                .findFirst()
                .orElseThrow();
        String value = v.getString("value");
        HttpResponse<String> work = get(client, base + "/api/strings/"
                + URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20"));
        assertEquals(version, work.version(), "/api/strings");
        JsonObject body = Vectors.parse(work.body());
        assertEquals(v.getString("input"), body.getString("input"));
        assertEquals(v.getJsonNumber("hash").longValue(), body.getJsonNumber("hash").longValue());
        assertEquals(v.getJsonNumber("workScore").longValue(), body.getJsonNumber("workScore").longValue());
    }

    private static final Pattern COUNT = Pattern.compile("(?m)^requests_total\\{.*} ([0-9.]+)$");

    private static double requestsCounted(String page) {
        double sum = 0;
        for (Matcher m = COUNT.matcher(page); m.find(); ) {
            sum += Double.parseDouble(m.group(1));
        }
        return sum;
    }

    private static HttpClient client(HttpClient.Version version, SSLContext ssl) {
        HttpClient.Builder b = HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(10));
        return (ssl == null ? b : b.sslContext(ssl)).build();
    }

    @Test
    void tlsServesHttp1AndH2() throws Exception {
        Map<String, String> env = new HashMap<>(tlsEnv());
        env.put("METRICS", "true");
        WebServer server = start(env);
        try {
            List<String> offered = List.of("h2", "http/1.1");
            HttpClient h2 = client(HttpClient.Version.HTTP_2, trustTestCa);
            String metrics = "https://127.0.0.1:" + server.port() + "/metrics";
            double before = requestsCounted(get(h2, metrics).body());
            for (String host : List.of("127.0.0.1", "localhost")) {
                String base = "https://" + host + ":" + server.port();
                // HTTP_1_1 offers ALPN http/1.1 only; HTTP_2 offers h2 first and answers over HTTP/2 only
                // when the server chose h2.
                checkContract(client(HttpClient.Version.HTTP_1_1, trustTestCa), base, HttpClient.Version.HTTP_1_1,
                              "JSSE", offered);
                checkContract(client(HttpClient.Version.HTTP_2, trustTestCa), base, HttpClient.Version.HTTP_2,
                              "JSSE", offered);
            }
            // METRICS=true counts each of the 8 requests once, whatever its protocol (the registry is the
            // JVM's: compare the difference).
            assertEquals(8.0, requestsCounted(get(h2, metrics).body()) - before);
            // TLS only: a plain HTTP request on the port gets no HTTP answer.
            assertThrows(IOException.class, () -> get(client(HttpClient.Version.HTTP_1_1, null),
                                                      "http://127.0.0.1:" + server.port() + "/health"));
        } finally {
            server.stop();
        }
    }

    @Test
    void h2cBesideHttp1() throws Exception {
        WebServer server = start(Map.of("HTTP2", "h2c"));
        try {
            String base = "http://127.0.0.1:" + server.port();
            List<String> offered = List.of("h2c", "http/1.1");
            checkContract(client(HttpClient.Version.HTTP_1_1, null), base, HttpClient.Version.HTTP_1_1, "off",
                          offered);
            // The JDK client reaches h2c by Upgrade; prior knowledge is checked below on a raw socket.
            checkContract(client(HttpClient.Version.HTTP_2, null), base, HttpClient.Version.HTTP_2, "off", offered);
            assertEquals(4, priorKnowledgeFrameType(server.port()), "the server's SETTINGS after the preface");
        } finally {
            server.stop();
        }
    }

    @Test
    void plainByDefaultServesNoHttp2() throws Exception {
        WebServer server = start(Map.of());
        try {
            String base = "http://127.0.0.1:" + server.port();
            // The JDK client asks for h2c by Upgrade; the plain server stays on HTTP/1.1.
            checkContract(client(HttpClient.Version.HTTP_2, null), base, HttpClient.Version.HTTP_1_1, "off",
                          List.of("http/1.1"));
            assertNotEquals(4, priorKnowledgeFrameType(server.port()));
        } finally {
            server.stop();
        }
    }

    /** Sends the HTTP/2 preface and an empty SETTINGS frame; the type of the first frame back, or -1. */
    private static int priorKnowledgeFrameType(int port) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0});
            out.flush();
            byte[] header = new byte[9];
            try {
                new DataInputStream(s.getInputStream()).readFully(header);
            } catch (IOException e) {
                return -1;
            }
            return header[3];
        }
    }

    /** The real Main with env: its exit status and stderr, expecting a refusal at start. */
    private static Object[] runMain(Map<String, String> env) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                                               Main.class.getName());
        pb.environment().keySet().removeAll(List.of("TLS_CERT_FILE", "TLS_KEY_FILE", "HTTP2"));
        pb.environment().putAll(env);
        pb.environment().put("HOST", "127.0.0.1");
        pb.environment().put("PORT", "0");
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        // stderr to a file, so that the wait below is what bounds the test (a read of the pipe would block
        // for as long as a child that did not refuse keeps running)
        Path stderr = Files.createTempFile(dir, "stderr", ".txt");
        pb.redirectError(stderr.toFile());
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("still running after 60 s, want a refusal at start: " + env);
        }
        return new Object[] {p.exitValue(), Files.readString(stderr)};
    }

    @Test
    void refusesAHalfConfiguredTransportAtStart() throws Exception {
        String cert = dir.resolve("cert.pem").toString();
        String key = dir.resolve("key.pem").toString();
        String missing = dir.resolve("missing.pem").toString();
        String otherKey = other.resolve("key.pem").toString();
        List<Object[]> cases = new ArrayList<>();
        cases.add(new Object[] {Map.of("TLS_CERT_FILE", cert), List.of("TLS_KEY_FILE", cert)});
        cases.add(new Object[] {Map.of("TLS_KEY_FILE", key), List.of("TLS_CERT_FILE", key)});
        cases.add(new Object[] {Map.of("TLS_CERT_FILE", missing, "TLS_KEY_FILE", key),
                List.of("TLS_CERT_FILE=" + missing)});
        cases.add(new Object[] {Map.of("TLS_CERT_FILE", cert, "TLS_KEY_FILE", missing),
                List.of("TLS_KEY_FILE=" + missing)});
        cases.add(new Object[] {Map.of("TLS_CERT_FILE", cert, "TLS_KEY_FILE", otherKey),
                List.of("TLS_KEY_FILE=" + otherKey, cert)});
        cases.add(new Object[] {Map.of("HTTP2", "h2"), List.of("HTTP2=h2")});
        cases.add(new Object[] {Map.of("HTTP2", "h2c", "TLS_CERT_FILE", cert, "TLS_KEY_FILE", key),
                List.of("HTTP2=h2c", "TLS_CERT_FILE")});
        for (Object[] c : cases) {
            @SuppressWarnings("unchecked")
            Map<String, String> env = (Map<String, String>) c[0];
            Object[] result = runMain(env);
            assertEquals(2, result[0], env + ": exit status; stderr " + result[1]);
            @SuppressWarnings("unchecked")
            List<String> words = (List<String>) c[1];
            for (String w : words) {
                assertTrue(((String) result[1]).contains(w), env + ": stderr names " + w + ": " + result[1]);
            }
        }
    }
}
