package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.component.ExportResult;
import dev.sluice.core.component.Exporter;
import dev.sluice.core.component.TlsClientConfig;
import dev.sluice.core.component.TlsServerConfig;
import dev.sluice.core.otlp.Batch;
import dev.sluice.core.otlp.OtlpIndex;
import dev.sluice.core.testkit.SequencedSpans;
import dev.sluice.core.testkit.TestCertificates;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the gRPC and the otlphttp exporters' TLS tests share: Sluice's own receiver with the test
 * certificate from {@link TestCertificates}, one batch of 20 spans sent with given {@code tls}
 * settings, and the cases that end the same for both protocols (a trusted CA, the system trust
 * store, mutual TLS). A subclass says how to start its receiver and exporter and how its endpoints
 * read.
 */
abstract class ExporterTlsTestBase {
  static TestCertificates certs;

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
   * Starts a receiver with {@link #serverTls}, recording into {@link #received} and stopped by
   * {@link #cleanup}; its port.
   */
  abstract int receiver(String clientCaFile) throws Exception;

  /** Starts an exporter to {@code endpoint} with the given TLS settings, stopped by cleanup. */
  abstract Exporter exporter(String endpoint, TlsClientConfig tls) throws Exception;

  /** The exporter's endpoint for the receiver on 127.0.0.1 at {@code port}. */
  abstract String endpoint(int port);

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
}
