package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.receiver.otlp.OtlpReceiver;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The {@code spanmetrics} connector in a running collector: spans from the OpenTelemetry Java SDK
 * reach the OTLP receiver on loopback, cross the connector from a traces pipeline into a metrics
 * pipeline, and leave through the otlp exporter to a sink; the metrics the sink receives, parsed
 * with protobuf-java, count exactly what was sent.
 */
class SpanMetricsEndToEndTest {
  private static final String[] ROUTES = {"/users/{id}", "/orders/{id}", "/health"};
  private static final int SPANS = 90;

  private record Sent(long calls, double durationMillis) {}

  @Test
  void spansFromTheSdkBecomeCallAndDurationMetrics() throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      String yaml =
          String.join(
              "\n",
              "receivers:",
              "  otlp:",
              "    protocols:",
              "      grpc:",
              "        endpoint: 127.0.0.1:0",
              "exporters:",
              "  otlp:",
              "    endpoint: " + sink.endpoint(),
              "    tls:",
              "      insecure: true",
              "    retry_on_failure:",
              "      initial_interval: 50ms",
              "      max_interval: 200ms",
              "connectors:",
              "  spanmetrics:",
              "    metrics_flush_interval: 100ms",
              "    aggregation_temporality: AGGREGATION_TEMPORALITY_DELTA",
              "    dimensions:",
              "      - name: http.route",
              "service:",
              "  telemetry:",
              "    metrics:",
              "      level: none",
              "  pipelines:",
              "    traces:",
              "      receivers: [otlp]",
              "      exporters: [spanmetrics]",
              "    metrics:",
              "      receivers: [spanmetrics]",
              "      exporters: [otlp]",
              "");
      Collector collector = TestCollectors.start(yaml, Collector.Options.defaults());
      Map<String, Sent> sent = new TreeMap<>();
      try {
        int port = ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp"))).grpcPort();
        SdkTracerProvider tracers =
            SdkTracerProvider.builder()
                .setResource(
                    io.opentelemetry.sdk.resources.Resource.create(
                        Attributes.of(
                            AttributeKey.stringKey("service.name"), "shop",
                            AttributeKey.stringKey("host.name"), "shop-1")))
                .addSpanProcessor(
                    BatchSpanProcessor.builder(
                            OtlpGrpcSpanExporter.builder()
                                .setEndpoint("http://127.0.0.1:" + port)
                                .build())
                        .build())
                .build();
        Tracer tracer = tracers.get("shop.http");
        long start = TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis());
        for (int i = 0; i < SPANS; i++) {
          String route = ROUTES[i % ROUTES.length];
          boolean error = i % 10 == 0;
          long durationNanos = (1 + i % 7) * 1_500_000L; // 1.5 ms to 10.5 ms
          Span span =
              tracer
                  .spanBuilder("GET " + route)
                  .setSpanKind(SpanKind.SERVER)
                  .setAttribute("http.route", route)
                  .setStartTimestamp(start, TimeUnit.NANOSECONDS)
                  .startSpan();
          if (error) {
            span.setStatus(StatusCode.ERROR);
          }
          span.end(start + durationNanos, TimeUnit.NANOSECONDS);
          String series = route + "|" + (error ? "STATUS_CODE_ERROR" : "STATUS_CODE_UNSET");
          Sent before = sent.getOrDefault(series, new Sent(0, 0));
          sent.put(
              series, new Sent(before.calls() + 1, before.durationMillis() + durationNanos / 1e6));
        }
        tracers.forceFlush().join(30, TimeUnit.SECONDS);
        tracers.shutdown().join(30, TimeUnit.SECONDS);

        assertThat(sink.await(() -> callsReceived(sink) >= SPANS, 60, TimeUnit.SECONDS))
            .as("calls counted")
            .isTrue();
        assertThat(callsReceived(sink)).isEqualTo(SPANS);

        Map<String, Sent> received = new TreeMap<>();
        for (ExportMetricsServiceRequest request : sink.metrics()) {
          for (ResourceMetrics resource : request.getResourceMetricsList()) {
            assertThat(attributes(resource.getResource().getAttributesList()))
                .containsEntry("service.name", "shop")
                .containsEntry("host.name", "shop-1");
            for (ScopeMetrics scope : resource.getScopeMetricsList()) {
              assertThat(scope.getScope().getName()).isEqualTo("spanmetricsconnector");
              for (Metric metric : scope.getMetricsList()) {
                collect(metric, received);
              }
            }
          }
        }
        assertThat(received.keySet()).isEqualTo(sent.keySet());
        for (Map.Entry<String, Sent> e : sent.entrySet()) {
          Sent got = received.get(e.getKey());
          assertThat(got.calls()).as(e.getKey()).isEqualTo(e.getValue().calls());
          assertThat(got.durationMillis())
              .as(e.getKey())
              .isCloseTo(e.getValue().durationMillis(), org.assertj.core.data.Offset.offset(1e-6));
        }
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  /** Adds a calls metric's counts and a duration metric's sums to {@code received}, per series. */
  private static void collect(Metric metric, Map<String, Sent> received) {
    switch (metric.getName()) {
      case "traces.span.metrics.calls" -> {
        assertThat(metric.getSum().getAggregationTemporality())
            .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA);
        for (NumberDataPoint point : metric.getSum().getDataPointsList()) {
          String series = series(point.getAttributesList());
          Sent before = received.getOrDefault(series, new Sent(0, 0));
          received.put(
              series, new Sent(before.calls() + point.getAsInt(), before.durationMillis()));
        }
      }
      case "traces.span.metrics.duration" -> {
        assertThat(metric.getUnit()).isEqualTo("ms");
        for (HistogramDataPoint point : metric.getHistogram().getDataPointsList()) {
          String series = series(point.getAttributesList());
          Sent before = received.getOrDefault(series, new Sent(0, 0));
          received.put(series, new Sent(before.calls(), before.durationMillis() + point.getSum()));
        }
      }
      default -> throw new AssertionError("unexpected metric " + metric.getName());
    }
  }

  private static String series(List<KeyValue> attributes) {
    Map<String, String> a = attributes(attributes);
    assertThat(a)
        .containsEntry("service.name", "shop")
        .containsEntry("span.kind", "SPAN_KIND_SERVER")
        .containsKey("collector.instance.id");
    assertThat(a.get("span.name")).isEqualTo("GET " + a.get("http.route"));
    return a.get("http.route") + "|" + a.get("status.code");
  }

  private static long callsReceived(OtlpSink sink) {
    long calls = 0;
    for (ExportMetricsServiceRequest request : sink.metrics()) {
      for (ResourceMetrics resource : request.getResourceMetricsList()) {
        for (ScopeMetrics scope : resource.getScopeMetricsList()) {
          for (Metric metric : scope.getMetricsList()) {
            if (metric.getName().equals("traces.span.metrics.calls")) {
              for (NumberDataPoint point : metric.getSum().getDataPointsList()) {
                calls += point.getAsInt();
              }
            }
          }
        }
      }
    }
    return calls;
  }

  private static Map<String, String> attributes(List<KeyValue> attributes) {
    Map<String, String> map = new HashMap<>();
    for (KeyValue kv : attributes) {
      map.put(kv.getKey(), kv.getValue().getStringValue());
    }
    return map;
  }
}
