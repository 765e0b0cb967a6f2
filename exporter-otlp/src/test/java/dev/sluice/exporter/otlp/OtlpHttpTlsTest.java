package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.component.Admission;
import dev.sluice.core.component.ComponentId;
import dev.sluice.core.component.ComponentKind;
import dev.sluice.core.component.ComponentSettings;
import dev.sluice.core.component.ExportResult;
import dev.sluice.core.component.QueueConfig;
import dev.sluice.core.component.RequestConsumer;
import dev.sluice.core.component.RetryConfig;
import dev.sluice.core.component.TlsClientConfig;
import dev.sluice.core.component.TlsServerConfig;
import dev.sluice.core.otlp.Batch;
import dev.sluice.core.otlp.OtlpIndex;
import dev.sluice.core.otlp.Signal;
import dev.sluice.core.telemetry.MetricRegistry;
import dev.sluice.core.testkit.SequencedSpans;
import dev.sluice.core.testkit.TestCertificates;
import dev.sluice.receiver.otlp.HttpServerConfig;
import dev.sluice.receiver.otlp.OtlpReceiver;
import dev.sluice.receiver.otlp.OtlpReceiverConfig;
import dev.sluice.receiver.otlp.OtlpReceiverFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sluice's otlphttp exporter against Sluice's own OTLP/HTTP receiver over https, with real
 * certificates from {@link TestCertificates}: what each {@code tls} setting of the exporter does,
 * and mutual TLS with the receiver's {@code client_ca_file}.
 */
class OtlpHttpTlsTest {
  private static TestCertificates certs;

  private final List<OtlpIndex> received = new ArrayList<>();
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

  /** Starts a receiver with the test certificate and, if not empty, a client CA; its port. */
  private int receiver(String clientCaFile) throws Exception {
    RequestConsumer consumer =
        new RequestConsumer() {
          @Override
          public Admission consume(OtlpIndex request) {
            synchronized (received) {
              received.add(request);
            }
            return Admission.ACCEPTED;
          }

          @Override
          public long retryDelayMillis() {
            return 1000;
          }
        };
    Map<Signal, RequestConsumer> consumers = new EnumMap<>(Signal.class);
    consumers.put(Signal.TRACES, consumer);
    HttpServerConfig http =
        new HttpServerConfig(
            "127.0.0.1:0",
            new TlsServerConfig(
                certs.serverCert().toString(), certs.serverKey().toString(), clientCaFile),
            null,
            20 << 20,
            false,
            "/v1/traces",
            "/v1/metrics",
            "/v1/logs");
    OtlpReceiver receiver =
        (OtlpReceiver)
            new OtlpReceiverFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("otlp"), ComponentKind.RECEIVER, new MetricRegistry()),
                    new OtlpReceiverConfig(new OtlpReceiverConfig.Protocols(null, http)),
                    consumers);
    receiver.start();
    cleanup.add(() -> receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5)));
    return receiver.httpPort();
  }

  /** Exports one batch of 20 spans with the given TLS settings. */
  private ExportResult send(String endpoint, TlsClientConfig tls) throws Exception {
    return exporter(endpoint, tls)
        .export(
            Batch.of(SequencedSpans.indexed("svc", 0, 20)),
            System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
  }

  private OtlpHttpExporter exporter(String endpoint, TlsClientConfig tls) throws Exception {
    OtlpHttpExporterConfig config =
        new OtlpHttpExporterConfig(
            endpoint,
            "",
            "",
            "",
            "proto",
            "gzip",
            tls,
            Map.of(),
            Duration.ofSeconds(5),
            QueueConfig.DEFAULT,
            RetryConfig.DEFAULT);
    OtlpHttpExporter exporter =
        (OtlpHttpExporter)
            new OtlpHttpExporterFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("otlphttp"),
                        ComponentKind.EXPORTER,
                        new MetricRegistry()),
                    config);
    exporter.start();
    cleanup.add(() -> exporter.shutdown(System.nanoTime()));
    return exporter;
  }

  private static TlsClientConfig tls(String caFile) {
    return new TlsClientConfig(false, caFile, "", "", false, "");
  }

  private static TlsClientConfig tls(String caFile, String certFile, String keyFile) {
    return new TlsClientConfig(false, caFile, certFile, keyFile, false, "");
  }

  private void assertDelivered(ExportResult result) {
    assertThat(result).isEqualTo(ExportResult.SUCCESS);
    synchronized (received) {
      assertThat(received).hasSize(1);
      assertThat(received.get(0).unitCount()).isEqualTo(20);
    }
  }

  private void assertRefused(ExportResult result) {
    assertThat(result.outcome()).isNotEqualTo(ExportResult.Outcome.SUCCESS);
    synchronized (received) {
      assertThat(received).isEmpty();
    }
  }

  @Test
  void deliversWhenTheCaFileTrustsTheServer() throws Exception {
    int port = receiver("");

    assertDelivered(send("https://127.0.0.1:" + port, tls(certs.caCert().toString())));
  }

  @Test
  void deliversToLocalhostByName() throws Exception {
    int port = receiver("");

    assertDelivered(send("https://localhost:" + port, tls(certs.caCert().toString())));
  }

  @Test
  void failsWithTheSystemTrustStoreWhichDoesNotKnowTheTestCa() throws Exception {
    int port = receiver("");

    ExportResult result = send("https://127.0.0.1:" + port, TlsClientConfig.DEFAULT);

    assertRefused(result);
    assertThat(result.message()).contains("SSLHandshakeException");
  }

  @Test
  void insecureSkipVerifyDeliversWithoutACaFile() throws Exception {
    int port = receiver("");

    assertDelivered(
        send("https://127.0.0.1:" + port, new TlsClientConfig(false, "", "", "", true, "")));
  }

  @Test
  void insecureSkipVerifyAlsoSkipsTheHostNameCheck() throws Exception {
    int port = receiver("");

    assertDelivered(
        send(
            "https://127.0.0.1:" + port,
            new TlsClientConfig(false, "", "", "", true, "not-the-server.example")));
  }

  @Test
  void verifiesTheServerNameOverrideInsteadOfTheUrlsHost() throws Exception {
    int port = receiver("");

    assertDelivered(
        send(
            "https://127.0.0.1:" + port,
            new TlsClientConfig(false, certs.caCert().toString(), "", "", false, "localhost")));
  }

  @Test
  void refusesACertificateThatDoesNotNameTheServerNameOverride() throws Exception {
    int port = receiver("");

    ExportResult result =
        send(
            "https://127.0.0.1:" + port,
            new TlsClientConfig(
                false, certs.caCert().toString(), "", "", false, "not-the-server.example"));

    assertRefused(result);
    assertThat(result.message()).contains("SSLHandshakeException", "not-the-server.example");
  }

  @Test
  void sendsTheServerNameOverrideAsSniAndKeepsTheConnection() throws Exception {
    ScriptedHttpServer server =
        ScriptedHttpServer.startTls(
            ScriptedHttpServer.Exchange::ok,
            certs.serverCert().toFile(),
            certs.serverKey().toFile());
    cleanup.add(server);
    OtlpHttpExporter byAddress =
        exporter(
            server.url("https", "127.0.0.1"),
            new TlsClientConfig(false, certs.caCert().toString(), "", "", false, "localhost"));
    OtlpHttpExporter byName =
        exporter(server.url("https", "localhost"), tls(certs.caCert().toString()));

    for (int i = 0; i < 3; i++) {
      assertThat(
              byAddress.export(
                  Batch.of(SequencedSpans.indexed("svc", i, 1)),
                  System.nanoTime() + TimeUnit.SECONDS.toNanos(5)))
          .isEqualTo(ExportResult.SUCCESS);
    }
    assertThat(
            byName.export(
                Batch.of(SequencedSpans.indexed("svc", 0, 1)),
                System.nanoTime() + TimeUnit.SECONDS.toNanos(5)))
        .isEqualTo(ExportResult.SUCCESS);

    assertThat(server.serverNames()).containsExactly("localhost", "localhost");
    assertThat(server.accepted()).isEqualTo(2);
  }

  @Test
  void plainHttpAgainstATlsServerFails() throws Exception {
    int port = receiver("");

    assertRefused(send("http://127.0.0.1:" + port, tls(certs.caCert().toString())));
  }

  @Test
  void mutualTlsRefusesAClientWithoutACertificate() throws Exception {
    int port = receiver(certs.caCert().toString());

    assertRefused(send("https://127.0.0.1:" + port, tls(certs.caCert().toString())));
  }

  @Test
  void mutualTlsRefusesAClientCertificateTheCaDidNotSign() throws Exception {
    int port = receiver(certs.caCert().toString());

    assertRefused(
        send(
            "https://127.0.0.1:" + port,
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
            "https://127.0.0.1:" + port,
            tls(
                certs.caCert().toString(),
                certs.clientCert().toString(),
                certs.clientKey().toString())));
  }
}
