package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.TlsServerConfig;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.tls.TlsLoader;
import dev.sluice.component.tls.TlsMaterial;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The receiver's {@code tls} options against a JDK TLS client on loopback, for the gRPC and the
 * HTTP server alike: {@code min_version}, {@code max_version}, {@code cipher_suites}, {@code
 * reload_interval} (of the server certificate and of the client CA), and start-up errors.
 */
class ReceiverTlsTest {
  private static final Duration RELOAD = Duration.ofMillis(100);
  private static final Duration RELOAD_WAIT = Duration.ofSeconds(10);
  private static final String ECDSA_AES_256 = "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384";
  private static final String ECDSA_AES_128 = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";

  enum Protocol {
    GRPC,
    HTTP
  }

  static TestCertificates certs;

  @TempDir Path dir;
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @BeforeAll
  static void generateCertificates() {
    certs = TestCertificates.shared();
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : cleanup) {
      c.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Protocol.class)
  void refusesAClientOfferingOnlyTls12WhenMinVersionIs13(Protocol protocol) throws Exception {
    int port = receiver(protocol, tls("1.3", "", List.of(), Duration.ZERO));

    assertThatThrownBy(() -> handshake(protocol, port, "TLSv1.2")).isInstanceOf(SSLException.class);
    assertThat(handshake(protocol, port, "TLSv1.3", "TLSv1.2").getProtocol()).isEqualTo("TLSv1.3");
  }

  @ParameterizedTest
  @EnumSource(Protocol.class)
  void negotiatesTls12WhenMaxVersionIs12(Protocol protocol) throws Exception {
    int port = receiver(protocol, tls("1.2", "1.2", List.of(), Duration.ZERO));

    assertThat(handshake(protocol, port, "TLSv1.3", "TLSv1.2").getProtocol()).isEqualTo("TLSv1.2");
    assertThatThrownBy(() -> handshake(protocol, port, "TLSv1.3")).isInstanceOf(SSLException.class);
  }

  @ParameterizedTest
  @EnumSource(Protocol.class)
  void negotiatesTheConfiguredCipherSuiteAndRefusesAClientWithoutIt(Protocol protocol)
      throws Exception {
    int port = receiver(protocol, tls("1.2", "1.2", List.of(ECDSA_AES_256), Duration.ZERO));

    SSLSession session = handshake(protocol, port, new String[] {"TLSv1.2"}, null);
    assertThat(session.getCipherSuite()).isEqualTo(ECDSA_AES_256);
    assertThatThrownBy(
            () -> handshake(protocol, port, new String[] {"TLSv1.2"}, new String[] {ECDSA_AES_128}))
        .isInstanceOf(SSLException.class);
  }

  @ParameterizedTest
  @EnumSource(Protocol.class)
  void cipherSuitesLeaveTls13AsGoDoes(Protocol protocol) throws Exception {
    int port = receiver(protocol, tls("1.2", "", List.of(ECDSA_AES_256), Duration.ZERO));

    assertThat(handshake(protocol, port, "TLSv1.3").getCipherSuite()).startsWith("TLS_AES_");
  }

  @ParameterizedTest
  @EnumSource(Protocol.class)
  void newConnectionsGetTheReloadedCertificate(Protocol protocol) throws Exception {
    Path cert = copy(certs.serverCert(), "server.pem");
    Path key = copy(certs.serverKey(), "server-key.pem");
    int port =
        receiver(
            protocol,
            new TlsServerConfig(
                cert.toString(), key.toString(), "", "1.2", "", List.of(), RELOAD, false));
    SSLSocket before = connect(protocol, port, null, "TLSv1.3");
    cleanup.add(before);
    assertThat(subject(before.getSession())).isEqualTo("CN=localhost");

    replace(certs.strangerCert(), cert);
    replace(certs.strangerKey(), key);

    awaitSubject(protocol, port, "CN=sluice-test-stranger");
    assertThat(subject(before.getSession())).isEqualTo("CN=localhost");
    if (protocol == Protocol.HTTP) {
      // The connection made before the reload keeps its session and still serves requests.
      assertThat(emptyExport(before)).startsWith("HTTP/1.1 200");
    }
  }

  @ParameterizedTest
  @EnumSource(Protocol.class)
  void aFailedReloadKeepsTheLastGoodCertificate(Protocol protocol) throws Exception {
    Path cert = copy(certs.serverCert(), "server.pem");
    Path key = copy(certs.serverKey(), "server-key.pem");
    int port =
        receiver(
            protocol,
            new TlsServerConfig(
                cert.toString(), key.toString(), "", "1.2", "", List.of(), RELOAD, false));

    // A new certificate whose key has not arrived yet: the pair does not match.
    replace(certs.strangerCert(), cert);
    Thread.sleep(RELOAD.toMillis() * 5);
    assertThat(subject(handshake(protocol, port, "TLSv1.3"))).isEqualTo("CN=localhost");

    replace(certs.strangerKey(), key);
    awaitSubject(protocol, port, "CN=sluice-test-stranger");
  }

  @ParameterizedTest
  @EnumSource(Protocol.class)
  void reloadsTheClientCaFile(Protocol protocol) throws Exception {
    Path clientCa = copy(certs.strangerCert(), "client-ca.pem");
    int port =
        receiver(
            protocol,
            new TlsServerConfig(
                certs.serverCert().toString(),
                certs.serverKey().toString(),
                clientCa.toString(),
                "1.2",
                "",
                List.of(),
                RELOAD,
                false));
    KeyManager[] client = clientKeys();
    assertThat(acceptsClient(protocol, port, client)).isFalse();

    replace(certs.caCert(), clientCa);

    awaitAccepted(protocol, port, client);
  }

  @Test
  void clientCaFileReloadChecksTheClientCaFileWithoutAReloadInterval() throws Exception {
    Path clientCa = copy(certs.strangerCert(), "client-ca.pem");
    int port =
        receiver(
            Protocol.HTTP,
            new TlsServerConfig(
                certs.serverCert().toString(),
                certs.serverKey().toString(),
                clientCa.toString(),
                "1.2",
                "",
                List.of(),
                Duration.ZERO,
                true));
    KeyManager[] client = clientKeys();
    assertThat(acceptsClient(Protocol.HTTP, port, client)).isFalse();

    replace(certs.caCert(), clientCa);

    awaitAccepted(Protocol.HTTP, port, client);
  }

  /** Waits (bounded) until the server accepts the client certificate. */
  private static void awaitAccepted(Protocol protocol, int port, KeyManager[] client)
      throws Exception {
    Await.until(
        "the client certificate accepted",
        RELOAD_WAIT,
        RELOAD,
        () -> acceptsClient(protocol, port, client));
  }

  @Test
  void failsToStartWhenTheTlsProviderLacksAConfiguredCipherSuite() {
    // OpenSSL (BoringSSL), which gRPC uses when it is available, has no DHE suites; the JDK has.
    assumeTrue(io.grpc.netty.shaded.io.netty.handler.ssl.OpenSsl.isAvailable());
    String dhe = "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384";

    assertThatThrownBy(
            () ->
                receiver(Protocol.GRPC, tls("1.2", "", List.of(ECDSA_AES_256, dhe), Duration.ZERO)))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(
            "receivers.otlp.protocols.grpc.tls.cipher_suites: "
                + dhe
                + " is not supported by this transport's TLS provider");
  }

  @Test
  void failsToStartNamingAMissingCertificateFile() {
    String missing = dir.resolve("absent.pem").toString();

    assertThatThrownBy(
            () ->
                receiver(
                    Protocol.HTTP, new TlsServerConfig(missing, certs.serverKey().toString(), "")))
        .isInstanceOf(IOException.class)
        .hasMessage(
            "receivers.otlp.protocols.http.tls.cert_file "
                + missing
                + ": cannot read it: no such file");
  }

  @Test
  void failsToStartWhenTheKeyDoesNotMatchTheCertificate() {
    assertThatThrownBy(
            () ->
                receiver(
                    Protocol.GRPC,
                    new TlsServerConfig(
                        certs.serverCert().toString(), certs.strangerKey().toString(), "")))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(
            "receivers.otlp.protocols.grpc.tls.key_file "
                + certs.strangerKey()
                + " does not match the certificate in receivers.otlp.protocols.grpc.tls.cert_file "
                + certs.serverCert()
                + " (CN=localhost)");
  }

  private static TlsServerConfig tls(
      String minVersion, String maxVersion, List<String> cipherSuites, Duration reload) {
    return new TlsServerConfig(
        certs.serverCert().toString(),
        certs.serverKey().toString(),
        "",
        minVersion,
        maxVersion,
        cipherSuites,
        reload,
        false);
  }

  /** Starts a receiver with only {@code protocol}'s server, with {@code tls}; its port. */
  private int receiver(Protocol protocol, TlsServerConfig tls) throws Exception {
    GrpcServerConfig grpc =
        protocol != Protocol.GRPC
            ? null
            : new GrpcServerConfig(
                "127.0.0.1:0", "tcp", tls, 4, 0, GrpcServerConfig.Keepalive.DEFAULT, false);
    HttpServerConfig http =
        protocol != Protocol.HTTP
            ? null
            : new HttpServerConfig(
                "127.0.0.1:0", tls, null, 1 << 20, false, "/v1/traces", "/v1/metrics", "/v1/logs");
    OtlpReceiver receiver =
        TestReceivers.create(new MetricRegistry(), grpc, http, new RecordingConsumer(1000));
    cleanup.add(() -> TestReceivers.shutdown(receiver));
    receiver.start();
    return protocol == Protocol.GRPC ? receiver.grpcPort() : receiver.httpPort();
  }

  private static SSLSession handshake(Protocol protocol, int port, String... protocols)
      throws Exception {
    return handshake(protocol, port, protocols, null);
  }

  /** Completes a handshake offering these protocols (and suites, unless null); its session. */
  private static SSLSession handshake(
      Protocol protocol, int port, String[] protocols, String[] suites) throws Exception {
    try (SSLSocket socket = connect(protocol, port, null, protocols, suites)) {
      return socket.getSession();
    }
  }

  private static SSLSocket connect(
      Protocol protocol, int port, KeyManager[] keys, String... protocols) throws Exception {
    return connect(protocol, port, keys, protocols, null);
  }

  /**
   * A JDK client that trusts any server certificate (so that the test sees whichever is presented)
   * and asks for h2 on the gRPC port, as gRPC clients do; its handshake is done.
   */
  private static SSLSocket connect(
      Protocol protocol, int port, KeyManager[] keys, String[] protocols, String[] suites)
      throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys, new TrustManager[] {trustingEveryone()}, null);
    SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket();
    socket.setSoTimeout(5_000);
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    SSLParameters parameters = socket.getSSLParameters();
    parameters.setProtocols(protocols);
    if (suites != null) {
      parameters.setCipherSuites(suites);
    }
    if (protocol == Protocol.GRPC) {
      parameters.setApplicationProtocols(new String[] {"h2"});
    }
    socket.setSSLParameters(parameters);
    try {
      socket.startHandshake();
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    return socket;
  }

  private static TrustManager trustingEveryone() throws IOException {
    TlsMaterial trusting =
        TlsLoader.client(
            new TlsClientConfig(false, "", "", "", true, ""), "", Logger.getLogger("test"));
    return trusting.trustManagers().getTrustManagers()[0];
  }

  private static KeyManager[] clientKeys() throws IOException {
    TlsMaterial client =
        TlsLoader.client(
            new TlsClientConfig(
                false, "", certs.clientCert().toString(), certs.clientKey().toString(), true, ""),
            "",
            Logger.getLogger("test"));
    return client.keyManagers().getKeyManagers();
  }

  /**
   * Whether the server accepts the client certificate: a server that refuses it fails the handshake
   * or (TLS 1.3) closes the connection right after, which the first read then sees.
   */
  private static boolean acceptsClient(Protocol protocol, int port, KeyManager[] keys)
      throws Exception {
    try (SSLSocket socket = connect(protocol, port, keys, "TLSv1.3")) {
      if (protocol == Protocol.HTTP) {
        return emptyExport(socket).startsWith("HTTP/1.1 200");
      }
      // A gRPC server speaks first after the handshake: its HTTP/2 SETTINGS frame.
      return socket.getInputStream().read() >= 0;
    } catch (IOException refused) {
      return false;
    }
  }

  /** Waits (bounded) until new connections present {@code subject}. */
  private static void awaitSubject(Protocol protocol, int port, String subject) throws Exception {
    Await.until(
        "new connections presenting " + subject,
        RELOAD_WAIT,
        RELOAD,
        () -> subject.equals(subject(handshake(protocol, port, "TLSv1.3"))));
  }

  private static String subject(SSLSession session) throws Exception {
    return ((X509Certificate) session.getPeerCertificates()[0]).getSubjectX500Principal().getName();
  }

  /** Posts an empty traces request on the connection; the status line of the answer. */
  private static String emptyExport(SSLSocket socket) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(
        ("POST /v1/traces HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = socket.getInputStream();
    StringBuilder line = new StringBuilder();
    int b;
    while ((b = in.read()) >= 0 && b != '\r') {
      line.append((char) b);
    }
    return line.toString();
  }

  private Path copy(Path from, String name) throws IOException {
    return Files.copy(from, dir.resolve(name));
  }

  /** Replaces {@code target} at once, as a deployment tool renames a new file into place. */
  private void replace(Path from, Path target) throws IOException {
    Path staged = Files.copy(from, dir.resolve(target.getFileName() + ".new"));
    Files.move(staged, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
