package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.TlsServerConfig;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.receiver.otlp.GrpcServerConfig;
import dev.sluice.receiver.otlp.OtlpReceiverConfig;
import dev.sluice.testkit.TestCertificates;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Sluice's OTLP gRPC exporter against Sluice's own gRPC receiver over TLS, with real certificates
 * from {@link TestCertificates}: what each {@code tls} setting of the exporter does, and mutual TLS
 * with the receiver's {@code client_ca_file}.
 */
class OtlpGrpcTlsTest extends ExporterTlsTestBase {
  @Override
  int receiver(TlsServerConfig tls) throws Exception {
    GrpcServerConfig grpc =
        new GrpcServerConfig(
            "127.0.0.1:0", "tcp", tls, 4, 0, GrpcServerConfig.Keepalive.DEFAULT, false);
    return TestComponents.tracesReceiver(
            cleanup, new OtlpReceiverConfig.Protocols(grpc, null), received)
        .grpcPort();
  }

  @Override
  OtlpGrpcExporter exporter(String endpoint, TlsClientConfig tls) throws Exception {
    OtlpExporterConfig defaults = OtlpExporterConfig.DEFAULT;
    OtlpExporterConfig config =
        new OtlpExporterConfig(
            endpoint,
            tls,
            Map.of(),
            "gzip",
            CompressionParams.DEFAULT,
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
    return exporter;
  }

  @Override
  String endpoint(int port) {
    return "127.0.0.1:" + port;
  }

  @Override
  String tlsPath() {
    return "exporters.otlp.tls";
  }

  @Override
  String untrustedServerMessage() {
    return "UNAVAILABLE";
  }

  @Test
  void deliversToLocalhostByNameAndWithAnHttpsScheme() throws Exception {
    int port = receiver("");

    assertDelivered(send("https://localhost:" + port, tls(certs.caCert().toString())));
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
}
