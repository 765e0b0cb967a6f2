package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.receiver.otlp.OtlpReceiver;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporter;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.BatchLogRecordProcessor;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The {@code count} connector in a running collector: the OpenTelemetry Java SDK sends spans and
 * log records to the OTLP receiver, the traces and logs pipelines end in the connector, and the
 * counts it makes cross into a metrics pipeline whose otlp exporter delivers them to a backend,
 * where protobuf-java reads them back and they add up to what was sent.
 */
class CountConnectorEndToEndTest {
  private static final int CHECKOUT_SPANS = 20;
  private static final int BROWSE_SPANS = 10;
  private static final int SPANS_WITH_EVENTS = 5;
  private static final int INFO_LOGS = 8;
  private static final int ERROR_LOGS = 4;

  /** Every data point of metric {@code name} received, with the resource it came under. */
  private static List<Map.Entry<List<KeyValue>, NumberDataPoint>> points(
      OtlpSink sink, String name) {
    List<Map.Entry<List<KeyValue>, NumberDataPoint>> points = new ArrayList<>();
    for (ExportMetricsServiceRequest request : sink.metrics()) {
      for (ResourceMetrics resource : request.getResourceMetricsList()) {
        for (ScopeMetrics scope : resource.getScopeMetricsList()) {
          for (Metric metric : scope.getMetricsList()) {
            if (!metric.getName().equals(name)) {
              continue;
            }
            assertThat(metric.getSum().getAggregationTemporality())
                .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA);
            assertThat(metric.getSum().getIsMonotonic()).isTrue();
            for (NumberDataPoint point : metric.getSum().getDataPointsList()) {
              points.add(Map.entry(resource.getResource().getAttributesList(), point));
            }
          }
        }
      }
    }
    return points;
  }

  private static long total(OtlpSink sink, String name) {
    return points(sink, name).stream().mapToLong(p -> p.getValue().getAsInt()).sum();
  }

  /** The totals of metric {@code name} by the value of its points' attribute {@code key}. */
  private static Map<String, Long> totalsBy(OtlpSink sink, String name, String key) {
    Map<String, Long> totals = new TreeMap<>();
    for (Map.Entry<List<KeyValue>, NumberDataPoint> point : points(sink, name)) {
      String value =
          point.getValue().getAttributesList().stream()
              .filter(a -> a.getKey().equals(key))
              .map(a -> a.getValue().getStringValue())
              .findFirst()
              .orElseThrow();
      totals.merge(value, point.getValue().getAsInt(), Long::sum);
    }
    return totals;
  }

  @Test
  void spansAndLogRecordsFromTheSdkAreCountedIntoAMetricsPipeline() throws Exception {
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
              "connectors:",
              "  count:",
              "    spans:",
              "      trace.span.count:",
              "        description: All spans.",
              "      spans.by.route:",
              "        attributes:",
              "          - key: http.route",
              "    logs:",
              "      log.record.count: {}",
              "      log.error.count:",
              "        conditions:",
              "          - severity_number >= SEVERITY_NUMBER_ERROR",
              "service:",
              "  telemetry:",
              "    metrics:",
              "      level: none",
              "  pipelines:",
              "    traces:",
              "      receivers: [otlp]",
              "      exporters: [count]",
              "    logs:",
              "      receivers: [otlp]",
              "      exporters: [count]",
              "    metrics/counts:",
              "      receivers: [count]",
              "      exporters: [otlp]",
              "");
      Collector collector = TestCollectors.start(yaml, Collector.Options.defaults());
      try {
        int port = ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp"))).grpcPort();
        String endpoint = "http://127.0.0.1:" + port;
        Resource shop =
            Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "shop"));
        SdkTracerProvider tracers =
            SdkTracerProvider.builder()
                .setResource(shop)
                .addSpanProcessor(
                    BatchSpanProcessor.builder(
                            OtlpGrpcSpanExporter.builder().setEndpoint(endpoint).build())
                        .build())
                .build();
        SdkLoggerProvider loggers =
            SdkLoggerProvider.builder()
                .setResource(shop)
                .addLogRecordProcessor(
                    BatchLogRecordProcessor.builder(
                            OtlpGrpcLogRecordExporter.builder().setEndpoint(endpoint).build())
                        .build())
                .build();

        Tracer tracer = tracers.get("shop.http");
        for (int i = 0; i < CHECKOUT_SPANS + BROWSE_SPANS; i++) {
          Span span =
              tracer
                  .spanBuilder("span-" + i)
                  .setAttribute("http.route", i < CHECKOUT_SPANS ? "/checkout" : "/browse")
                  .startSpan();
          if (i < SPANS_WITH_EVENTS) {
            span.addEvent("retry");
          }
          span.end();
        }
        Logger logger = loggers.get("shop.log");
        for (int i = 0; i < INFO_LOGS + ERROR_LOGS; i++) {
          logger
              .logRecordBuilder()
              .setSeverity(i < ERROR_LOGS ? Severity.ERROR : Severity.INFO)
              .setBody("line " + i)
              .emit();
        }
        tracers.forceFlush().join(30, TimeUnit.SECONDS);
        loggers.forceFlush().join(30, TimeUnit.SECONDS);
        tracers.shutdown().join(30, TimeUnit.SECONDS);
        loggers.shutdown().join(30, TimeUnit.SECONDS);

        int spans = CHECKOUT_SPANS + BROWSE_SPANS;
        int logs = INFO_LOGS + ERROR_LOGS;
        assertThat(
                sink.await(
                    () ->
                        total(sink, "trace.span.count") >= spans
                            && total(sink, "spans.by.route") >= spans
                            && total(sink, "trace.span.event.count") >= SPANS_WITH_EVENTS
                            && total(sink, "log.record.count") >= logs
                            && total(sink, "log.error.count") >= ERROR_LOGS,
                    30,
                    TimeUnit.SECONDS))
            .as("counts received: %s", sink.metrics())
            .isTrue();

        assertThat(total(sink, "trace.span.count")).isEqualTo(spans);
        assertThat(total(sink, "trace.span.event.count")).isEqualTo(SPANS_WITH_EVENTS);
        assertThat(totalsBy(sink, "spans.by.route", "http.route"))
            .containsExactlyEntriesOf(
                new TreeMap<>(
                    Map.of("/browse", (long) BROWSE_SPANS, "/checkout", (long) CHECKOUT_SPANS)));
        assertThat(total(sink, "log.record.count")).isEqualTo(logs);
        assertThat(total(sink, "log.error.count")).isEqualTo(ERROR_LOGS);
        assertThat(points(sink, "trace.span.count"))
            .allSatisfy(
                p -> {
                  assertThat(p.getKey())
                      .anySatisfy(
                          a -> {
                            assertThat(a.getKey()).isEqualTo("service.name");
                            assertThat(a.getValue().getStringValue()).isEqualTo("shop");
                          });
                  assertThat(p.getValue().getTimeUnixNano())
                      .isGreaterThan(p.getValue().getStartTimeUnixNano());
                });
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }
}
