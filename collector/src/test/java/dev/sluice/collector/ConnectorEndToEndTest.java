package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.RetryInfo;
import dev.sluice.component.ComponentId;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.receiver.otlp.OtlpReceiver;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The {@code forward} connector in a running collector: spans from the OpenTelemetry Java SDK cross
 * it into two pipelines that process their own copies, and a stalled destination behind it makes
 * the collector refuse retryably over gRPC and HTTP, losing nothing it accepted.
 */
class ConnectorEndToEndTest {
  private static final int SPANS = 40;

  private static String exporter(String id, OtlpSink sink, String extra) {
    return String.join(
        "\n",
        "  " + id + ":",
        "    endpoint: " + sink.endpoint(),
        "    tls:",
        "      insecure: true",
        "    timeout: 60s",
        "    retry_on_failure:",
        "      initial_interval: 50ms",
        "      max_interval: 200ms",
        "      max_elapsed_time: 60s",
        extra);
  }

  private static List<Span> spans(OtlpSink sink) {
    List<Span> spans = new ArrayList<>();
    for (ExportTraceServiceRequest request : sink.traces()) {
      request
          .getResourceSpansList()
          .forEach(r -> r.getScopeSpansList().forEach(s -> spans.addAll(s.getSpansList())));
    }
    return spans;
  }

  private static boolean marked(Span span) {
    return span.getAttributesList().stream().anyMatch(kv -> kv.getKey().equals("copy.mark"));
  }

  @Test
  void spansCrossTheConnectorIntoPipelinesThatEachProcessTheirOwn() throws Exception {
    try (OtlpSink plain = OtlpSink.start();
        OtlpSink marked = OtlpSink.start()) {
      String yaml =
          String.join(
              "\n",
              "receivers:",
              "  otlp:",
              "    protocols:",
              "      grpc:",
              "        endpoint: 127.0.0.1:0",
              "processors:",
              "  batch:",
              "    timeout: 20ms",
              "  attributes:",
              "    actions:",
              "      - key: copy.mark",
              "        value: marked",
              "        action: upsert",
              "exporters:",
              exporter("otlp/plain", plain, ""),
              exporter("otlp/marked", marked, ""),
              "connectors:",
              "  forward:",
              "service:",
              "  telemetry:",
              "    metrics:",
              "      level: none",
              "  pipelines:",
              "    traces/in:",
              "      receivers: [otlp]",
              "      processors: [batch]",
              "      exporters: [forward]",
              "    traces/plain:",
              "      receivers: [forward]",
              "      exporters: [otlp/plain]",
              "    traces/marked:",
              "      receivers: [forward]",
              "      processors: [attributes]",
              "      exporters: [otlp/marked]",
              "");
      Collector collector = TestCollectors.start(yaml, Collector.Options.defaults());
      try {
        int port = ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp"))).grpcPort();
        SdkTracerProvider tracers =
            SdkTracerProvider.builder()
                .setResource(
                    io.opentelemetry.sdk.resources.Resource.create(
                        Attributes.of(AttributeKey.stringKey("service.name"), "shop")))
                .addSpanProcessor(
                    BatchSpanProcessor.builder(
                            OtlpGrpcSpanExporter.builder()
                                .setEndpoint("http://127.0.0.1:" + port)
                                .build())
                        .build())
                .build();
        Tracer tracer = tracers.get("shop.http");
        for (int i = 0; i < SPANS; i++) {
          tracer.spanBuilder("span-" + i).setAttribute("n", i).startSpan().end();
        }
        tracers.forceFlush().join(30, TimeUnit.SECONDS);
        tracers.shutdown().join(30, TimeUnit.SECONDS);

        assertThat(plain.await(() -> plain.spans() >= SPANS, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(marked.await(() -> marked.spans() >= SPANS, 30, TimeUnit.SECONDS)).isTrue();
        List<Span> plainSpans = spans(plain);
        List<Span> markedSpans = spans(marked);
        assertThat(plainSpans).hasSize(SPANS).noneMatch(ConnectorEndToEndTest::marked);
        assertThat(markedSpans).hasSize(SPANS).allMatch(ConnectorEndToEndTest::marked);
        assertThat(markedSpans)
            .extracting(Span::getSpanId)
            .containsExactlyInAnyOrderElementsOf(plainSpans.stream().map(Span::getSpanId).toList());
        assertThat(plainSpans)
            .extracting(Span::getName)
            .containsExactlyInAnyOrderElementsOf(
                IntStream.range(0, SPANS).mapToObj(i -> "span-" + i).toList());
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  @Test
  void aStalledDestinationBehindTheConnectorIsARetryableRefusalOverGrpcAndHttp() throws Exception {
    try (OtlpSink sink = OtlpSink.start().hold()) {
      String yaml =
          String.join(
              "\n",
              "receivers:",
              "  otlp:",
              "    protocols:",
              "      grpc:",
              "        endpoint: 127.0.0.1:0",
              "      http:",
              "        endpoint: 127.0.0.1:0",
              "exporters:",
              exporter(
                  "otlp", sink, "    sending_queue:\n      num_consumers: 1\n      queue_size: 2"),
              "connectors:",
              "  forward:",
              "service:",
              "  telemetry:",
              "    metrics:",
              "      level: none",
              "  pipelines:",
              "    traces/in:",
              "      receivers: [otlp]",
              "      exporters: [forward]",
              "    traces/out:",
              "      receivers: [forward]",
              "      exporters: [otlp]",
              "");
      Collector collector =
          TestCollectors.start(yaml, new Collector.Options(64L << 20, Long.MAX_VALUE / 4, 700));
      ManagedChannel channel = TestCollectors.channel(collector);
      try {
        TraceServiceGrpc.TraceServiceBlockingStub stub = TraceServiceGrpc.newBlockingStub(channel);
        int accepted = 0;
        StatusRuntimeException refusal = null;
        for (int i = 0; i < 100 && refusal == null; i++) {
          try {
            stub.withDeadlineAfter(10, TimeUnit.SECONDS)
                .export(SequencedSpans.request("svc", accepted, 10));
            accepted += 10;
          } catch (StatusRuntimeException e) {
            refusal = e;
          }
        }
        assertThat(refusal).as("no refusal after %d spans", accepted).isNotNull();
        assertThat(refusal.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        RetryInfo retry = StatusProto.fromThrowable(refusal).getDetails(0).unpack(RetryInfo.class);
        assertThat(retry.getRetryDelay().getNanos()).isEqualTo(700_000_000);

        int httpPort = ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp"))).httpPort();
        HttpResponse<String> answer =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + httpPort + "/v1/traces"))
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/x-protobuf")
                        .POST(
                            HttpRequest.BodyPublishers.ofByteArray(
                                SequencedSpans.request("svc", 100_000, 10).toByteArray()))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.headers().firstValue("Retry-After")).contains("1");

        sink.release();
        int expected = accepted;
        assertThat(sink.await(() -> sink.spans() >= expected, 60, TimeUnit.SECONDS)).isTrue();
        assertThat(BackpressureTest.spanNumbers(sink))
            .isEqualTo(IntStream.range(0, accepted).boxed().toList());
        Await.until("the memory budget released", () -> collector.budget().usedBytes() == 0);
      } finally {
        channel.shutdownNow();
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }
}
