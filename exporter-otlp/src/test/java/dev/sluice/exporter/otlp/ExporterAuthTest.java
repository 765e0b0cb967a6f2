package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.AuthConfig;
import dev.sluice.component.ClientAuthenticator;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.Host;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RequestHeaders;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.ServerAuthenticator;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.receiver.otlp.GrpcServerConfig;
import dev.sluice.receiver.otlp.HttpServerConfig;
import dev.sluice.receiver.otlp.OtlpReceiver;
import dev.sluice.receiver.otlp.OtlpReceiverConfig;
import dev.sluice.receiver.otlp.OtlpReceiverFactory;
import dev.sluice.testkit.SequencedSpans;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Both exporters with {@code auth.authenticator}, against Sluice's own receiver checking the same
 * header: the client authenticator's current headers go on every call.
 */
class ExporterAuthTest {
  private static final AuthConfig SERVER_AUTH = new AuthConfig("check");
  private static final AuthConfig CLIENT_AUTH = new AuthConfig("sign/agent");

  /** Accepts the one {@code x-api-key} value it holds now. */
  static final class ApiKeyCheck implements ServerAuthenticator {
    volatile String expected = "key-1";

    @Override
    public boolean authenticate(RequestHeaders headers) {
      return expected.equals(headers.get("X-Api-Key"));
    }

    @Override
    public String challenge() {
      return "ApiKey realm=\"test\"";
    }
  }

  /** Sends the {@code x-api-key} it holds now. */
  static final class ApiKeySigner implements ClientAuthenticator {
    volatile Map<String, String> headers = Map.of("x-api-key", "key-1");

    @Override
    public Map<String, String> requestHeaders() {
      return headers;
    }
  }

  private final List<AutoCloseable> cleanup = new ArrayList<>();
  private final List<OtlpIndex> received = new ArrayList<>();
  private final ApiKeyCheck check = new ApiKeyCheck();
  private final ApiKeySigner signer = new ApiKeySigner();
  private final Host host =
      Host.of(Map.of(ComponentId.parse("check"), check, ComponentId.parse("sign/agent"), signer));
  private OtlpReceiver receiver;

  @BeforeEach
  void startReceiver() throws Exception {
    GrpcServerConfig grpc =
        new GrpcServerConfig(
            "127.0.0.1:0",
            "tcp",
            null,
            4,
            0,
            GrpcServerConfig.Keepalive.DEFAULT,
            false,
            1000,
            32,
            Duration.ofSeconds(10),
            Duration.ofMinutes(1),
            SERVER_AUTH);
    HttpServerConfig defaults = HttpServerConfig.DEFAULT;
    HttpServerConfig http =
        new HttpServerConfig(
            "127.0.0.1:0",
            null,
            null,
            defaults.maxRequestBodySize(),
            false,
            defaults.tracesUrlPath(),
            defaults.metricsUrlPath(),
            defaults.logsUrlPath(),
            defaults.readTimeout(),
            defaults.readHeaderTimeout(),
            defaults.idleTimeout(),
            defaults.maxConnections(),
            defaults.maxInFlightBytesMib(),
            SERVER_AUTH);
    receiver =
        (OtlpReceiver)
            new OtlpReceiverFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("otlp"), ComponentKind.RECEIVER, new MetricRegistry()),
                    new OtlpReceiverConfig(new OtlpReceiverConfig.Protocols(grpc, http)),
                    Map.of(dev.sluice.pdata.Signal.TRACES, new Recording(received)));
    receiver.start(host);
    cleanup.add(() -> receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5)));
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
  }

  @Test
  void theGrpcExporterSendsTheCurrentCredentialOnEachCall() throws Exception {
    ExportResult refused = sendAcrossACredentialChange(grpcExporter(CLIENT_AUTH));

    assertThat(refused.message()).contains("UNAUTHENTICATED").doesNotContain("key-1");
  }

  @Test
  void theHttpExporterSendsTheCurrentCredentialOnEachRequest() throws Exception {
    ExportResult refused = sendAcrossACredentialChange(httpExporter(CLIENT_AUTH));

    assertThat(refused.message()).contains("401");
  }

  /**
   * Sends with the first credential (accepted), after the receiver wants a new one (refused), and
   * after the authenticator has it (accepted); returns the refusal.
   */
  private ExportResult sendAcrossACredentialChange(Exporter exporter) throws Exception {
    assertThat(send(exporter).outcome()).isEqualTo(ExportResult.Outcome.SUCCESS);

    check.expected = "key-2";
    ExportResult refused = send(exporter);
    signer.headers = Map.of("x-api-key", "key-2");
    ExportResult renewed = send(exporter);

    assertThat(refused.outcome()).isNotEqualTo(ExportResult.Outcome.SUCCESS);
    assertThat(renewed.outcome()).isEqualTo(ExportResult.Outcome.SUCCESS);
    assertThat(received).hasSize(2);
    return refused;
  }

  @Test
  void theHttpExporterSendsNoCredentialThatWouldStartAnotherHeader() throws Exception {
    Exporter exporter = httpExporter(CLIENT_AUTH);
    signer.headers = Map.of("x-api-key", "key-1\r\nX-Injected: 1");

    ExportResult refused = send(exporter);
    signer.headers = Map.of("x-api-key", "key-1");
    ExportResult renewed = send(exporter);

    assertThat(refused)
        .isEqualTo(
            ExportResult.retryable(
                "the authenticator's request headers hold characters HTTP does not allow", 0));
    assertThat(renewed.outcome()).isEqualTo(ExportResult.Outcome.SUCCESS);
    assertThat(received).hasSize(1);
  }

  @Test
  void exportersWithoutAnAuthenticatorAreRefused() throws Exception {
    assertThat(send(grpcExporter(null)).outcome()).isNotEqualTo(ExportResult.Outcome.SUCCESS);
    assertThat(send(httpExporter(null)).outcome()).isNotEqualTo(ExportResult.Outcome.SUCCESS);
    assertThat(received).isEmpty();
  }

  private static ExportResult send(Exporter exporter) throws InterruptedException {
    return exporter.export(
        Batch.of(SequencedSpans.indexed("svc", 0, 5)),
        System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
  }

  private Exporter grpcExporter(AuthConfig auth) throws Exception {
    OtlpExporterConfig d = OtlpExporterConfig.DEFAULT;
    OtlpExporterConfig config =
        new OtlpExporterConfig(
            "127.0.0.1:" + receiver.grpcPort(),
            new TlsClientConfig(true, "", "", "", false, ""),
            Map.of(),
            "none",
            CompressionParams.DEFAULT,
            Duration.ofSeconds(5),
            QueueConfig.DISABLED,
            RetryConfig.DISABLED,
            null,
            d.balancerName(),
            "",
            false,
            auth);
    return started(new OtlpExporterFactory().create(settings("otlp"), config));
  }

  private Exporter httpExporter(AuthConfig auth) throws Exception {
    OtlpHttpExporterConfig config =
        new OtlpHttpExporterConfig(
            "http://127.0.0.1:" + receiver.httpPort(),
            "",
            "",
            "",
            "proto",
            "none",
            CompressionParams.DEFAULT,
            TlsClientConfig.DEFAULT,
            Map.of(),
            Duration.ofSeconds(5),
            QueueConfig.DISABLED,
            RetryConfig.DISABLED,
            auth);
    return started(new OtlpHttpExporterFactory().create(settings("otlphttp"), config));
  }

  private Exporter started(Exporter exporter) throws Exception {
    exporter.start(host);
    cleanup.add(() -> exporter.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5)));
    return exporter;
  }

  private static ComponentSettings settings(String id) {
    return new ComponentSettings(
        ComponentId.parse(id), ComponentKind.EXPORTER, new MetricRegistry());
  }

  /** Accepts every request, keeping it. */
  private record Recording(List<OtlpIndex> into) implements dev.sluice.component.RequestConsumer {
    @Override
    public synchronized dev.sluice.component.Admission consume(OtlpIndex request) {
      synchronized (into) {
        into.add(request);
      }
      return dev.sluice.component.Admission.ACCEPTED;
    }

    @Override
    public long retryDelayMillis() {
      return 1000;
    }
  }
}
