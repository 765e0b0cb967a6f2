package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.TlsServerConfig;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import dev.sluice.testkit.TestCertificates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the gRPC and the otlphttp exporters' TLS tests share: Sluice's own receiver with the test
 * certificate from {@link TestCertificates}, one batch of 20 spans sent with given {@code tls}
 * settings, and the cases that end the same for both protocols (a trusted CA, the system trust
 * store, mutual TLS). A subclass says how to start its receiver and exporter and how its endpoints
 * read.
 */
abstract class ExporterTlsTestBase {
  static final String ECDSA_AES_128 = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";
  static final String ECDSA_AES_256 = "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384";
  static final Duration RELOAD = Duration.ofMillis(100);
  static final Duration RELOAD_WAIT = Duration.ofSeconds(20);

  static TestCertificates certs;

  @TempDir Path dir;

  final List<OtlpIndex> received = new ArrayList<>();
  final List<AutoCloseable> cleanup = new ArrayList<>();

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

  /**
   * Starts a receiver with {@code tls}, recording into {@link #received} and stopped by {@link
   * #cleanup}; its port.
   */
  abstract int receiver(TlsServerConfig tls) throws Exception;

  /** Starts a receiver with {@link #serverTls}; its port. */
  int receiver(String clientCaFile) throws Exception {
    return receiver(serverTls(clientCaFile));
  }

  /** Starts an exporter to {@code endpoint} with the given TLS settings, stopped by cleanup. */
  abstract Exporter exporter(String endpoint, TlsClientConfig tls) throws Exception;

  /** The exporter's endpoint for the receiver on 127.0.0.1 at {@code port}. */
  abstract String endpoint(int port);

  /** The exporter's {@code tls} section's key path, as its errors name it. */
  abstract String tlsPath();

  /** What the failure says when the system trust store does not know the server's CA. */
  abstract String untrustedServerMessage();

  /** The test certificate and, if not empty, a client CA. */
  static TlsServerConfig serverTls(String clientCaFile) {
    return new TlsServerConfig(
        certs.serverCert().toString(), certs.serverKey().toString(), clientCaFile);
  }

  /** Exports one batch of 20 spans with the given TLS settings. */
  ExportResult send(String endpoint, TlsClientConfig tls) throws Exception {
    return exporter(endpoint, tls)
        .export(
            Batch.of(SequencedSpans.indexed("svc", 0, 20)),
            System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
  }

  static TlsClientConfig tls(String caFile) {
    return new TlsClientConfig(false, caFile, "", "", false, "");
  }

  static TlsClientConfig tls(String caFile, String certFile, String keyFile) {
    return new TlsClientConfig(false, caFile, certFile, keyFile, false, "");
  }

  /** Trusts the test CA, with these versions and cipher suites. */
  static TlsClientConfig tls(String minVersion, String maxVersion, List<String> cipherSuites) {
    return new TlsClientConfig(
        false,
        certs.caCert().toString(),
        "",
        "",
        false,
        "",
        minVersion,
        maxVersion,
        cipherSuites,
        Duration.ZERO);
  }

  /** The test certificate with these versions and cipher suites. */
  static TlsServerConfig serverTls(
      String minVersion, String maxVersion, List<String> cipherSuites) {
    return new TlsServerConfig(
        certs.serverCert().toString(),
        certs.serverKey().toString(),
        "",
        minVersion,
        maxVersion,
        cipherSuites,
        Duration.ZERO,
        false);
  }

  void assertDelivered(ExportResult result) {
    assertThat(result).isEqualTo(ExportResult.SUCCESS);
    synchronized (received) {
      assertThat(received).hasSize(1);
      assertThat(received.get(0).unitCount()).isEqualTo(20);
    }
  }

  void assertRefused(ExportResult result) {
    assertThat(result.outcome()).isNotEqualTo(ExportResult.Outcome.SUCCESS);
    synchronized (received) {
      assertThat(received).isEmpty();
    }
  }

  @Test
  void deliversWhenTheCaFileTrustsTheServer() throws Exception {
    int port = receiver("");

    assertDelivered(send(endpoint(port), tls(certs.caCert().toString())));
  }

  @Test
  void failsWithTheSystemTrustStoreWhichDoesNotKnowTheTestCa() throws Exception {
    int port = receiver("");

    ExportResult result = send(endpoint(port), TlsClientConfig.DEFAULT);

    assertRefused(result);
    assertThat(result.message()).contains(untrustedServerMessage());
  }

  @Test
  void mutualTlsRefusesAClientWithoutACertificate() throws Exception {
    int port = receiver(certs.caCert().toString());

    assertRefused(send(endpoint(port), tls(certs.caCert().toString())));
  }

  @Test
  void mutualTlsRefusesAClientCertificateTheCaDidNotSign() throws Exception {
    int port = receiver(certs.caCert().toString());

    assertRefused(
        send(
            endpoint(port),
            tls(
                certs.caCert().toString(),
                certs.strangerCert().toString(),
                certs.strangerKey().toString())));
  }

  @Test
  void mutualTlsAcceptsAClientCertificateSignedByTheClientCa() throws Exception {
    int port = receiver(certs.caCert().toString());

    assertDelivered(
        send(
            endpoint(port),
            tls(
                certs.caCert().toString(),
                certs.clientCert().toString(),
                certs.clientKey().toString())));
  }

  @Test
  void offersTheConfiguredVersionAndCipherSuite() throws Exception {
    HandshakeRecorder recorder = new HandshakeRecorder(serverTls(""));
    cleanup.add(recorder);

    send(endpoint(recorder.port()), tls("1.2", "1.2", List.of(ECDSA_AES_128)));
    send(endpoint(recorder.port()), tls("1.2", "", List.of()));

    assertThat(recorder.handshakes()).hasSize(2);
    assertThat(recorder.handshakes().get(0)).isEqualTo("TLSv1.2 " + ECDSA_AES_128);
    assertThat(recorder.handshakes().get(1)).startsWith("TLSv1.3 TLS_AES_");
  }

  @Test
  void isRefusedByAServerWhoseMinVersionIsAboveItsMaxVersion() throws Exception {
    int port = receiver(serverTls("1.3", "", List.of()));

    assertRefused(send(endpoint(port), tls("1.2", "1.2", List.of())));
    assertDelivered(send(endpoint(port), tls("1.2", "", List.of())));
  }

  @Test
  void isRefusedByAServerWithNoCipherSuiteInCommon() throws Exception {
    int port = receiver(serverTls("1.2", "1.2", List.of(ECDSA_AES_256)));

    assertRefused(send(endpoint(port), tls("1.2", "1.2", List.of(ECDSA_AES_128))));
    assertDelivered(send(endpoint(port), tls("1.2", "1.2", List.of(ECDSA_AES_256))));
  }

  @Test
  void picksUpAReplacedClientCertificate() throws Exception {
    int port = receiver(certs.caCert().toString());
    Path cert = copy(certs.strangerCert(), "client.pem");
    Path key = copy(certs.strangerKey(), "client-key.pem");
    Exporter exporter =
        exporter(
            endpoint(port),
            new TlsClientConfig(
                false,
                certs.caCert().toString(),
                cert.toString(),
                key.toString(),
                false,
                "",
                "1.2",
                "",
                List.of(),
                RELOAD));
    assertRefused(exportOnce(exporter));

    replace(certs.clientCert(), cert);
    replace(certs.clientKey(), key);

    awaitDelivery(exporter);
  }

  @Test
  void picksUpAReplacedCaFile() throws Exception {
    int port = receiver("");
    Path ca = copy(certs.strangerCert(), "ca.pem");
    Exporter exporter =
        exporter(
            endpoint(port),
            new TlsClientConfig(
                false, ca.toString(), "", "", false, "", "1.2", "", List.of(), RELOAD));
    assertRefused(exportOnce(exporter));

    replace(certs.caCert(), ca);

    awaitDelivery(exporter);
  }

  @Test
  void failsToStartNamingAMissingCaFile() {
    String missing = dir.resolve("absent.pem").toString();

    assertThatThrownBy(() -> exporter(endpoint(1), tls(missing)))
        .isInstanceOf(IOException.class)
        .hasMessage(tlsPath() + ".ca_file " + missing + ": cannot read it: no such file");
  }

  @Test
  void failsToStartNamingAFileThatIsNotPem() throws Exception {
    Path notPem = Files.writeString(dir.resolve("key.pem"), "not a key\n");

    assertThatThrownBy(
            () ->
                exporter(
                    endpoint(1),
                    tls(
                        certs.caCert().toString(),
                        certs.clientCert().toString(),
                        notPem.toString())))
        .isInstanceOf(IOException.class)
        .hasMessage(
            tlsPath()
                + ".key_file "
                + notPem
                + ": is not PEM: no -----BEGIN PRIVATE KEY----- block");
  }

  @Test
  void failsToStartWithAKeyThatDoesNotMatchTheCertificate() {
    assertThatThrownBy(
            () ->
                exporter(
                    endpoint(1),
                    tls(
                        certs.caCert().toString(),
                        certs.clientCert().toString(),
                        certs.strangerKey().toString())))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(
            tlsPath()
                + ".key_file "
                + certs.strangerKey()
                + " does not match the certificate in "
                + tlsPath()
                + ".cert_file "
                + certs.clientCert());
  }

  ExportResult exportOnce(Exporter exporter) throws InterruptedException {
    return exporter.export(
        Batch.of(SequencedSpans.indexed("svc", 0, 20)),
        System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
  }

  /** Exports until one is delivered (bounded). */
  void awaitDelivery(Exporter exporter) throws InterruptedException {
    Await.until(
        "an export delivered",
        RELOAD_WAIT,
        RELOAD,
        () -> exportOnce(exporter).equals(ExportResult.SUCCESS));
  }

  Path copy(Path from, String name) throws IOException {
    return Files.copy(from, dir.resolve(name));
  }

  /** Replaces {@code target} at once, as a deployment tool renames a new file into place. */
  void replace(Path from, Path target) throws IOException {
    Path staged = Files.copy(from, dir.resolve(target.getFileName() + ".new"));
    Files.move(staged, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
