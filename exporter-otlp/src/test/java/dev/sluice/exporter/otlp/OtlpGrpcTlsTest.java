package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.component.Admission;
import dev.sluice.core.component.ComponentId;
import dev.sluice.core.component.ComponentKind;
import dev.sluice.core.component.ComponentSettings;
import dev.sluice.core.component.ExportResult;
import dev.sluice.core.component.RequestConsumer;
import dev.sluice.core.component.TlsClientConfig;
import dev.sluice.core.component.TlsServerConfig;
import dev.sluice.core.otlp.Batch;
import dev.sluice.core.otlp.OtlpIndex;
import dev.sluice.core.otlp.Signal;
import dev.sluice.core.telemetry.MetricRegistry;
import dev.sluice.core.testkit.SequencedSpans;
import dev.sluice.core.testkit.TestCertificates;
import dev.sluice.receiver.otlp.GrpcServerConfig;
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
 * Sluice's OTLP gRPC exporter against Sluice's own gRPC receiver over TLS, with real certificates
 * from {@link TestCertificates}: what each {@code tls} setting of the exporter does, and mutual TLS
 * with the receiver's {@code client_ca_file}.
 */
class OtlpGrpcTlsTest {
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
    GrpcServerConfig grpc =
        new GrpcServerConfig(
            "127.0.0.1:0",
            "tcp",
            new TlsServerConfig(
                certs.serverCert().toString(), certs.serverKey().toString(), clientCaFile),
            4,
            0,
            GrpcServerConfig.Keepalive.DEFAULT,
            false);
    OtlpReceiver receiver =
        (OtlpReceiver)
            new OtlpReceiverFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("otlp"), ComponentKind.RECEIVER, new MetricRegistry()),
                    new OtlpReceiverConfig(new OtlpReceiverConfig.Protocols(grpc, null)),
                    consumers);
    receiver.start();
    cleanup.add(() -> receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5)));
    return receiver.grpcPort();
  }

  /** Exports one batch of 20 spans with the given TLS settings. */
  private ExportResult send(String endpoint, TlsClientConfig tls) throws Exception {
    OtlpExporterConfig defaults = OtlpExporterConfig.DEFAULT;
    OtlpExporterConfig config =
        new OtlpExporterConfig(
            endpoint,
            tls,
            Map.of(),
            "gzip",
            Duration.ofSeconds(5),
            defaults.sendingQueue(),
            defaults.retryOnFailure(),
            null,
            "round_robin",
            "",
            false);
    OtlpGrpcExporter exporter =
        (OtlpGrpcExporter)
            new OtlpExporterFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("otlp"), ComponentKind.EXPORTER, new MetricRegistry()),
                    config);
    exporter.start();
    cleanup.add(() -> exporter.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5)));
    return exporter.export(
        Batch.of(SequencedSpans.indexed("svc", 0, 20)),
        System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
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

    assertDelivered(send("127.0.0.1:" + port, tls(certs.caCert().toString())));
  }

  @Test
  void deliversToLocalhostByNameAndWithAnHttpsScheme() throws Exception {
    int port = receiver("");

    assertDelivered(send("https://localhost:" + port, tls(certs.caCert().toString())));
  }

  @Test
  void failsWithTheSystemTrustStoreWhichDoesNotKnowTheTestCa() throws Exception {
    int port = receiver("");

    ExportResult result = send("127.0.0.1:" + port, TlsClientConfig.DEFAULT);

    assertRefused(result);
    assertThat(result.message()).contains("UNAVAILABLE");
  }

  @Test
  void verifiesTheServerNameAgainstTheCertificate() throws Exception {
    int port = receiver("");
    String ca = certs.caCert().toString();

    ExportResult wrongName =
        send("127.0.0.1:" + port, new TlsClientConfig(false, ca, "", "", false, "example.com"));
    ExportResult rightName =
        send("127.0.0.1:" + port, new TlsClientConfig(false, ca, "", "", false, "localhost"));

    assertThat(wrongName.outcome()).isNotEqualTo(ExportResult.Outcome.SUCCESS);
    assertDelivered(rightName);
  }

  @Test
  void insecureSkipVerifyDeliversWithoutACaFile() throws Exception {
    int port = receiver("");

    assertDelivered(
        send("127.0.0.1:" + port, new TlsClientConfig(false, "", "", "", true, "example.com")));
  }

  @Test
  void plaintextAgainstATlsServerFails() throws Exception {
    int port = receiver("");

    ExportResult insecure =
        send("127.0.0.1:" + port, new TlsClientConfig(true, "", "", "", false, ""));
    ExportResult httpScheme = send("http://127.0.0.1:" + port, tls(certs.caCert().toString()));

    assertRefused(insecure);
    assertRefused(httpScheme);
  }

  @Test
  void mutualTlsRefusesAClientWithoutACertificate() throws Exception {
    int port = receiver(certs.caCert().toString());

    assertRefused(send("127.0.0.1:" + port, tls(certs.caCert().toString())));
  }

  @Test
  void mutualTlsRefusesAClientCertificateTheCaDidNotSign() throws Exception {
    int port = receiver(certs.caCert().toString());

    assertRefused(
        send(
            "127.0.0.1:" + port,
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
            "127.0.0.1:" + port,
            tls(
                certs.caCert().toString(),
                certs.clientCert().toString(),
                certs.clientKey().toString())));
  }
}
