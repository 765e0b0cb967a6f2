package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ExportResult;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.TlsServerConfig;
import dev.sluice.http.testkit.ScriptedHttpServer;
import dev.sluice.pdata.Batch;
import dev.sluice.receiver.otlp.HttpServerConfig;
import dev.sluice.receiver.otlp.OtlpReceiverConfig;
import dev.sluice.testkit.SequencedSpans;
import dev.sluice.testkit.TestCertificates;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Sluice's otlphttp exporter against Sluice's own OTLP/HTTP receiver over https, with real
 * certificates from {@link TestCertificates}: what each {@code tls} setting of the exporter does,
 * and mutual TLS with the receiver's {@code client_ca_file}.
 */
class OtlpHttpTlsTest extends ExporterTlsTestBase {
  @Override
  int receiver(TlsServerConfig tls) throws Exception {
    HttpServerConfig http =
        new HttpServerConfig(
            "127.0.0.1:0", tls, null, 20 << 20, false, "/v1/traces", "/v1/metrics", "/v1/logs");
    return TestComponents.tracesReceiver(
            cleanup, new OtlpReceiverConfig.Protocols(null, http), received)
        .httpPort();
  }

  @Override
  OtlpHttpExporter exporter(String endpoint, TlsClientConfig tls) throws Exception {
    return TestComponents.httpExporter(cleanup, endpoint, "proto", "gzip", tls, Map.of());
  }

  @Override
  String endpoint(int port) {
    return "https://127.0.0.1:" + port;
  }

  @Override
  String tlsPath() {
    return "exporters.otlphttp.tls";
  }

  @Override
  String untrustedServerMessage() {
    return "SSLHandshakeException";
  }

  @Test
  void deliversToLocalhostByName() throws Exception {
    int port = receiver("");

    assertDelivered(send("https://localhost:" + port, tls(certs.caCert().toString())));
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
}
