package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.SpanShapes;
import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The generator's encoded requests parse with protobuf-java and have what was asked for. */
class RequestShapesTest {
  private static Workload workload(
      Signal signal, RequestShapes.SpanShape shape, int items, int distinct) {
    return Workload.build(new Workload.Spec(signal, shape, items, 150, 7, distinct, 42));
  }

  @ParameterizedTest
  @EnumSource(RequestShapes.SpanShape.class)
  void spanRequestsParseAndHoldTheRequestedSpans(RequestShapes.SpanShape shape) throws Exception {
    int items = shape == RequestShapes.SpanShape.ATTRS_20X5000 ? 10 : 200;
    Workload workload = workload(Signal.TRACES, shape, items, 3);
    assertThat(workload.requests()).hasSize(3);
    assertThat(workload.itemsPerRequest()).isEqualTo(items);
    Set<String> distinct = new HashSet<>();
    for (byte[] bytes : workload.requests()) {
      ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(bytes);
      List<Span> spans = request.getResourceSpans(0).getScopeSpans(0).getSpansList();
      assertThat(spans).hasSize(items);
      for (Span span : spans) {
        assertThat(span.getTraceId().size()).isEqualTo(16);
        assertThat(span.getSpanId().size()).isEqualTo(8);
        assertThat(span.getEndTimeUnixNano()).isGreaterThan(span.getStartTimeUnixNano());
      }
      distinct.add(spans.get(0).getTraceId().toStringUtf8());
    }
    assertThat(distinct).as("each distinct request has its own spans").hasSize(3);
  }

  @Test
  void realisticSpansAreSpanShapesSpans() {
    byte[] bytes =
        workload(Signal.TRACES, RequestShapes.SpanShape.REALISTIC, 1000, 1).requests().get(0);
    assertThat(bytes).isEqualTo(SpanShapes.requestBytes(42, 1000));
    assertThat(bytes.length / 1000.0).isBetween(400.0, 460.0);
  }

  @Test
  void minimalSpansAreSmall() throws Exception {
    byte[] bytes =
        workload(Signal.TRACES, RequestShapes.SpanShape.MINIMAL, 1000, 1).requests().get(0);
    Span span =
        ExportTraceServiceRequest.parseFrom(bytes).getResourceSpans(0).getScopeSpans(0).getSpans(0);
    assertThat(span.getAttributesCount()).isZero();
    assertThat(span.getSerializedSize()).isBetween(40, 70);
  }

  @ParameterizedTest
  @EnumSource(
      value = RequestShapes.SpanShape.class,
      names = {"ATTRS_20X5000", "ATTRS_100X50"})
  void heavySpansHaveTheTestbedsAttributeCountsAndSizes(RequestShapes.SpanShape shape)
      throws Exception {
    byte[] bytes = workload(Signal.TRACES, shape, 5, 1).requests().get(0);
    List<Span> spans =
        ExportTraceServiceRequest.parseFrom(bytes)
            .getResourceSpans(0)
            .getScopeSpans(0)
            .getSpansList();
    List<String> keys = null;
    long keyBytes = 0;
    for (Span span : spans) {
      assertThat(span.getAttributesCount()).isEqualTo(shape.attributes());
      List<String> spanKeys = span.getAttributesList().stream().map(KeyValue::getKey).toList();
      if (keys == null) {
        keys = spanKeys;
      }
      assertThat(spanKeys).as("the same keys on every span").isEqualTo(keys);
      for (KeyValue attribute : span.getAttributesList()) {
        assertThat(attribute.getValue().getStringValue()).hasSize(shape.valueBytes());
        assertThat(attribute.getKey().length()).isBetween(1, 199);
      }
    }
    assertThat(new HashSet<>(keys)).hasSize(shape.attributes());
    for (String key : keys) {
      keyBytes += key.length();
    }
    // The testbed's keys are 1 to 199 bytes, 100 on average.
    assertThat(keyBytes / (double) keys.size()).isBetween(60.0, 140.0);
    assertThat(spans.get(0).getAttributes(0).getValue())
        .as("values are drawn per span")
        .isNotEqualTo(spans.get(1).getAttributes(0).getValue());
    long expected = (long) shape.attributes() * (shape.valueBytes() + 100);
    assertThat(bytes.length / 5.0).isBetween(expected * 0.6, expected * 1.4);
  }

  @Test
  void logRequestsHoldRealisticRecords() throws Exception {
    Workload workload = workload(Signal.LOGS, RequestShapes.SpanShape.REALISTIC, 1000, 2);
    assertThat(workload.itemsPerRequest()).isEqualTo(1000);
    ExportLogsServiceRequest request =
        ExportLogsServiceRequest.parseFrom(workload.requests().get(0));
    List<LogRecord> records = request.getResourceLogs(0).getScopeLogs(0).getLogRecordsList();
    assertThat(records).hasSize(1000);
    long withTrace = records.stream().filter(r -> r.getTraceId().size() == 16).count();
    assertThat(withTrace).isBetween(700L, 900L);
    for (LogRecord record : records) {
      assertThat(record.getBody().getStringValue()).hasSizeBetween(30, 200);
      assertThat(record.getSeverityText()).isNotEmpty();
      assertThat(record.getAttributesCount()).isEqualTo(4);
    }
    assertThat(workload.averageRequestBytes() / 1000).isBetween(200.0, 400.0);
  }

  @Test
  void metricRequestsHold150MetricsOf7DataPoints() throws Exception {
    Workload workload = workload(Signal.METRICS, RequestShapes.SpanShape.REALISTIC, 1000, 2);
    assertThat(workload.itemsPerRequest()).as("items are data points").isEqualTo(150 * 7);
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.parseFrom(workload.requests().get(1));
    List<Metric> metrics = request.getResourceMetrics(0).getScopeMetrics(0).getMetricsList();
    assertThat(metrics).hasSize(150);
    for (Metric metric : metrics) {
      int points =
          switch (metric.getDataCase()) {
            case GAUGE -> metric.getGauge().getDataPointsCount();
            case SUM -> metric.getSum().getDataPointsCount();
            case HISTOGRAM -> metric.getHistogram().getDataPointsCount();
            default -> -1;
          };
      assertThat(points).isEqualTo(7);
    }
    assertThat(metrics.stream().map(Metric::getDataCase).distinct()).hasSize(3);
  }

  @Test
  void requestsAreDeterministic() {
    for (Signal signal : Signal.values()) {
      Workload a = workload(signal, RequestShapes.SpanShape.REALISTIC, 50, 2);
      Workload b = workload(signal, RequestShapes.SpanShape.REALISTIC, 50, 2);
      for (int i = 0; i < 2; i++) {
        assertThat(a.requests().get(i)).isEqualTo(b.requests().get(i));
      }
    }
  }
}
