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
import io.opentelemetry.context.Context;
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
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The {@code servicegraph} connector in a running collector: two services' spans from the
 * OpenTelemetry Java SDK (client spans of {@code frontend}, the server spans of {@code backend}
 * they called) reach the OTLP receiver on loopback, are paired into edges in a traces pipeline, and
 * leave as metrics through the otlp exporter to a sink; the last metrics the sink receives, parsed
 * with protobuf-java, count exactly the calls sent.
 */
class ServiceGraphEndToEndTest {
  private static final int CALLS = 60;

  @Test
  void clientAndServerSpansOfTwoServicesBecomeEdgeMetrics() throws Exception {
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
              "  servicegraph:",
              "    metrics_flush_interval: 100ms",
              "    dimensions: [http.request.method]",
              "    store:",
              "      ttl: 1m",
              "service:",
              "  telemetry:",
              "    metrics:",
              "      level: none",
              "  pipelines:",
              "    traces:",
              "      receivers: [otlp]",
              "      exporters: [servicegraph]",
              "    metrics:",
              "      receivers: [servicegraph]",
              "      exporters: [otlp]",
              "");
      Collector collector = TestCollectors.start(yaml, Collector.Options.defaults());
      long failedSent = 0;
      double clientSeconds = 0;
      double serverSeconds = 0;
      try {
        int port = ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp"))).grpcPort();
        SdkTracerProvider frontend = provider("frontend", port);
        SdkTracerProvider backend = provider("backend", port);
        Tracer clientTracer = frontend.get("frontend.http");
        Tracer serverTracer = backend.get("backend.http");
        long start = TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis());
        for (int i = 0; i < CALLS; i++) {
          boolean failed = i % 6 == 0;
          long serverNanos = (1 + i % 5) * 2_000_000L;
          long clientNanos = serverNanos + 1_000_000L;
          Span client =
              clientTracer
                  .spanBuilder("GET /items")
                  .setSpanKind(SpanKind.CLIENT)
                  .setAttribute("http.request.method", "GET")
                  .setStartTimestamp(start, TimeUnit.NANOSECONDS)
                  .startSpan();
          Span server =
              serverTracer
                  .spanBuilder("GET /items")
                  .setSpanKind(SpanKind.SERVER)
                  .setParent(Context.root().with(client))
                  .setAttribute("http.request.method", "GET")
                  .setStartTimestamp(start, TimeUnit.NANOSECONDS)
                  .startSpan();
          if (failed) {
            server.setStatus(StatusCode.ERROR);
            failedSent++;
          }
          server.end(start + serverNanos, TimeUnit.NANOSECONDS);
          client.end(start + clientNanos, TimeUnit.NANOSECONDS);
          clientSeconds += clientNanos / 1e9;
          serverSeconds += serverNanos / 1e9;
        }
        for (SdkTracerProvider p : List.of(frontend, backend)) {
          p.forceFlush().join(30, TimeUnit.SECONDS);
          p.shutdown().join(30, TimeUnit.SECONDS);
        }

        assertThat(sink.await(() -> requestsCounted(sink) >= CALLS, 60, TimeUnit.SECONDS))
            .as("requests counted")
            .isTrue();
        ExportMetricsServiceRequest last = lastWithTotals(sink).orElseThrow();
        assertThat(last.getResourceMetricsCount()).isEqualTo(1);
        ResourceMetrics resource = last.getResourceMetrics(0);
        assertThat(resource.getResource().getAttributesList()).isEmpty();
        ScopeMetrics scope = resource.getScopeMetrics(0);
        assertThat(scope.getScope().getName()).isEqualTo("traces_service_graph");

        Map<String, Metric> metrics = new HashMap<>();
        for (Metric m : scope.getMetricsList()) {
          metrics.put(m.getName(), m);
        }
        Metric total = metrics.get("traces_service_graph_request_total");
        assertThat(total.getSum().getAggregationTemporality())
            .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
        long totalCount = 0;
        for (NumberDataPoint p : total.getSum().getDataPointsList()) {
          Map<String, String> a = attributes(p.getAttributesList());
          assertThat(a)
              .containsEntry("client", "frontend")
              .containsEntry("server", "backend")
              .containsEntry("connection_type", "")
              .containsEntry("client_http.request.method", "GET")
              .containsEntry("server_http.request.method", "GET");
          totalCount += p.getAsInt();
        }
        assertThat(totalCount).isEqualTo(CALLS);
        NumberDataPoint failed =
            metrics.get("traces_service_graph_request_failed_total").getSum().getDataPoints(0);
        assertThat(failed.getAsInt()).isEqualTo(failedSent);
        assertThat(attributes(failed.getAttributesList())).containsEntry("failed", "true");

        assertThat(sum(metrics.get("traces_service_graph_request_client")))
            .isCloseTo(clientSeconds, Offset.offset(1e-9));
        assertThat(sum(metrics.get("traces_service_graph_request_server")))
            .isCloseTo(serverSeconds, Offset.offset(1e-9));
        assertThat(metrics.get("traces_service_graph_request_server").getUnit()).isEqualTo("s");
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  private static SdkTracerProvider provider(String service, int port) {
    return SdkTracerProvider.builder()
        .setResource(
            io.opentelemetry.sdk.resources.Resource.create(
                Attributes.of(AttributeKey.stringKey("service.name"), service)))
        .addSpanProcessor(
            BatchSpanProcessor.builder(
                    OtlpGrpcSpanExporter.builder().setEndpoint("http://127.0.0.1:" + port).build())
                .build())
        .build();
  }

  private static double sum(Metric histogram) {
    double sum = 0;
    long count = 0;
    for (HistogramDataPoint p : histogram.getHistogram().getDataPointsList()) {
      sum += p.getSum();
      count += p.getCount();
    }
    assertThat(count).isEqualTo(CALLS);
    return sum;
  }

  /** The cumulative request count in the last metrics received. */
  private static long requestsCounted(OtlpSink sink) {
    return lastWithTotals(sink)
        .map(
            r -> {
              long n = 0;
              for (Metric m : r.getResourceMetrics(0).getScopeMetrics(0).getMetricsList()) {
                if (m.getName().equals("traces_service_graph_request_total")) {
                  for (NumberDataPoint p : m.getSum().getDataPointsList()) {
                    n += p.getAsInt();
                  }
                }
              }
              return n;
            })
        .orElse(0L);
  }

  private static Optional<ExportMetricsServiceRequest> lastWithTotals(OtlpSink sink) {
    List<ExportMetricsServiceRequest> all = sink.metrics();
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
  }

  private static Map<String, String> attributes(List<KeyValue> attributes) {
    Map<String, String> map = new HashMap<>();
    for (KeyValue kv : attributes) {
      map.put(
          kv.getKey(),
          kv.getValue().hasBoolValue()
              ? Boolean.toString(kv.getValue().getBoolValue())
              : kv.getValue().getStringValue());
    }
    return map;
  }
}
