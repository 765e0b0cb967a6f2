package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.receiver.otlp.OtlpReceiver;
import io.grpc.Metadata;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The auth extensions in a running collector: the OpenTelemetry Java SDK with the right header gets
 * through the OTLP receiver, without it is refused; Sluice's exporters sign their calls.
 */
class AuthenticationTest {
  private static final String TOKEN = "t0ken-for-the-sdk";
  private static final String BCRYPT_SECRET =
      "$2y$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a";

  @TempDir Path dir;

  @Test
  void theSdkWithTheBearerTokenGetsThroughAndWithoutItIsRefused() throws Exception {
    Path tokenFile = dir.resolve("token");
    Files.writeString(tokenFile, TOKEN + "\n");
    try (OtlpSink sink = OtlpSink.start()) {
      Collector collector =
          TestCollectors.start(
              receiverToSink(
                  "  bearertokenauth:\n    filename: " + tokenFile + "\n", "bearertokenauth", sink),
              Collector.Options.defaults());
      try {
        OtlpReceiver receiver = (OtlpReceiver) collector.receiver(ComponentId.parse("otlp"));
        String grpc = "http://127.0.0.1:" + receiver.grpcPort();
        String http = "http://127.0.0.1:" + receiver.httpPort() + "/v1/traces";

        assertThat(export(grpcSdk(grpc, "Bearer " + TOKEN))).isTrue();
        assertThat(export(httpSdk(http, "Bearer " + TOKEN))).isTrue();
        assertThat(export(grpcSdk(grpc, null))).isFalse();
        assertThat(export(httpSdk(http, null))).isFalse();
        assertThat(export(grpcSdk(grpc, "Bearer not-" + TOKEN))).isFalse();
        assertThat(export(httpSdk(http, "Bearer not-" + TOKEN))).isFalse();

        assertThat(sink.await(() -> sink.spans() >= 2, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(TestCollectors.prometheus(collector))
            .contains(
                "sluice_receiver_unauthenticated_requests_total{receiver=\"otlp\",transport=\"grpc\"} 2")
            .contains(
                "sluice_receiver_unauthenticated_requests_total{receiver=\"otlp\",transport=\"http\"} 2");
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
      assertThat(sink.spans()).isEqualTo(2);
    }
  }

  @Test
  void theSdkWithBasicCredentialsFromAnHtpasswdFileGetsThrough() throws Exception {
    Path htpasswd = dir.resolve("htpasswd");
    Files.writeString(htpasswd, "agent:" + BCRYPT_SECRET + "\n");
    try (OtlpSink sink = OtlpSink.start()) {
      Collector collector =
          TestCollectors.start(
              receiverToSink(
                  "  basicauth/agents:\n    htpasswd:\n      file: " + htpasswd + "\n",
                  "basicauth/agents",
                  sink),
              Collector.Options.defaults());
      try {
        OtlpReceiver receiver = (OtlpReceiver) collector.receiver(ComponentId.parse("otlp"));
        String grpc = "http://127.0.0.1:" + receiver.grpcPort();
        String http = "http://127.0.0.1:" + receiver.httpPort() + "/v1/traces";

        assertThat(export(grpcSdk(grpc, basic("agent", "secret")))).isTrue();
        assertThat(export(httpSdk(http, basic("agent", "secret")))).isTrue();
        assertThat(export(grpcSdk(grpc, basic("agent", "guess")))).isFalse();
        assertThat(export(httpSdk(http, null))).isFalse();
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
      assertThat(sink.spans()).isEqualTo(2);
    }
  }

  /**
   * SDK -> collector A (otlphttp exporter signing with basicauth) -> collector B (its HTTP receiver
   * checks basicauth; its otlp exporter signs with bearertokenauth) -> the sink, which sees the
   * bearer token on every call. The span arriving proves B accepted A's credentials.
   */
  @Test
  void sluiceExportersSignTheirCallsForTheNextHop() throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      Collector b =
          TestCollectors.start(
              String.join(
                  "\n",
                  "extensions:",
                  "  basicauth/in:",
                  "    htpasswd:",
                  "      inline: |",
                  "        relay:" + BCRYPT_SECRET,
                  "  bearertokenauth/out:",
                  "    token: " + TOKEN,
                  "receivers:",
                  "  otlp:",
                  "    protocols:",
                  "      http:",
                  "        endpoint: 127.0.0.1:0",
                  "        auth:",
                  "          authenticator: basicauth/in",
                  "exporters:",
                  "  otlp:",
                  "    endpoint: " + sink.endpoint(),
                  "    tls:",
                  "      insecure: true",
                  "    headers:",
                  "      authorization: stale",
                  "    auth:",
                  "      authenticator: bearertokenauth/out",
                  "service:",
                  "  extensions: [basicauth/in, bearertokenauth/out]",
                  "  telemetry:",
                  "    metrics:",
                  "      level: none",
                  "  pipelines:",
                  "    traces:",
                  "      receivers: [otlp]",
                  "      exporters: [otlp]",
                  ""),
              Collector.Options.defaults());
      try {
        int bPort = ((OtlpReceiver) b.receiver(ComponentId.parse("otlp"))).httpPort();
        Collector a =
            TestCollectors.start(
                String.join(
                    "\n",
                    "extensions:",
                    "  basicauth/out:",
                    "    client_auth:",
                    "      username: relay",
                    "      password: secret",
                    "receivers:",
                    "  otlp:",
                    "    protocols:",
                    "      grpc:",
                    "        endpoint: 127.0.0.1:0",
                    "exporters:",
                    "  otlphttp:",
                    "    endpoint: http://127.0.0.1:" + bPort,
                    "    auth:",
                    "      authenticator: basicauth/out",
                    "service:",
                    "  extensions: [basicauth/out]",
                    "  telemetry:",
                    "    metrics:",
                    "      level: none",
                    "  pipelines:",
                    "    traces:",
                    "      receivers: [otlp]",
                    "      exporters: [otlphttp]",
                    ""),
                Collector.Options.defaults());
        try {
          int aPort = ((OtlpReceiver) a.receiver(ComponentId.parse("otlp"))).grpcPort();
          assertThat(export(grpcSdk("http://127.0.0.1:" + aPort, null))).isTrue();

          assertThat(sink.await(() -> sink.spans() >= 1, 30, TimeUnit.SECONDS)).isTrue();
          // The authenticator's header replaces the configured one of the same name.
          assertThat(sink.headers())
              .allSatisfy(
                  h ->
                      assertThat(
                              h.getAll(
                                  Metadata.Key.of(
                                      "authorization", Metadata.ASCII_STRING_MARSHALLER)))
                          .containsExactly("Bearer " + TOKEN));
        } finally {
          a.shutdown(TimeUnit.SECONDS.toNanos(10));
        }
      } finally {
        b.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  /** otlp (gRPC and HTTP, checked by {@code authenticator}) -> otlp exporter to the sink. */
  private static String receiverToSink(String extensions, String authenticator, OtlpSink sink) {
    return String.join(
        "\n",
        "extensions:",
        extensions,
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "        endpoint: 127.0.0.1:0",
        "        auth:",
        "          authenticator: " + authenticator,
        "      http:",
        "        endpoint: 127.0.0.1:0",
        "        auth:",
        "          authenticator: " + authenticator,
        "exporters:",
        "  otlp:",
        "    endpoint: " + sink.endpoint(),
        "    tls:",
        "      insecure: true",
        "service:",
        "  extensions: [" + authenticator + "]",
        "  telemetry:",
        "    metrics:",
        "      address: 127.0.0.1:0",
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        "      exporters: [otlp]",
        "");
  }

  private static String basic(String user, String password) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  private static SpanExporter grpcSdk(String endpoint, String authorization) {
    var builder = OtlpGrpcSpanExporter.builder().setEndpoint(endpoint);
    if (authorization != null) {
      builder.addHeader("Authorization", authorization);
    }
    return builder.build();
  }

  private static SpanExporter httpSdk(String endpoint, String authorization) {
    var builder = OtlpHttpSpanExporter.builder().setEndpoint(endpoint);
    if (authorization != null) {
      builder.addHeader("Authorization", authorization);
    }
    return builder.build();
  }

  /** Exports one span with the SDK's exporter; whether the receiver accepted it. */
  private static boolean export(SpanExporter exporter) {
    try {
      CompletableResultCode result = exporter.export(List.of(span()));
      return result.join(20, TimeUnit.SECONDS).isSuccess();
    } finally {
      exporter.shutdown().join(5, TimeUnit.SECONDS);
    }
  }

  /** One ended span, made by the SDK's tracer. */
  private static SpanData span() {
    List<SpanData> ended = new ArrayList<>();
    SpanProcessor collect =
        new SpanProcessor() {
          @Override
          public void onStart(Context parent, ReadWriteSpan span) {}

          @Override
          public boolean isStartRequired() {
            return false;
          }

          @Override
          public void onEnd(ReadableSpan span) {
            ended.add(span.toSpanData());
          }

          @Override
          public boolean isEndRequired() {
            return true;
          }
        };
    try (SdkTracerProvider provider =
        SdkTracerProvider.builder().addSpanProcessor(collect).build()) {
      provider.get("test").spanBuilder("checkout").setSpanKind(SpanKind.SERVER).startSpan().end();
    }
    return ended.get(0);
  }
}
