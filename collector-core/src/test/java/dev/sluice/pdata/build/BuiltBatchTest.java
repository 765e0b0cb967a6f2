package dev.sluice.pdata.build;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.build.MetricsBuilder.MetricWriter;
import dev.sluice.pdata.build.TracesBuilder.SpanWriter;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.internal.OtlpEnums.AggregationTemporality;
import dev.sluice.pdata.internal.OtlpEnums.SeverityNumber;
import dev.sluice.pdata.internal.OtlpEnums.SpanKind;
import dev.sluice.pdata.internal.OtlpEnums.StatusCode;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.ArrayCursor;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.DataPointView;
import dev.sluice.pdata.view.MetricType;
import dev.sluice.pdata.view.SpanEventView;
import dev.sluice.pdata.view.SpanLinkView;
import dev.sluice.pdata.view.ValueType;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a component does with built data: it makes a batch of the index, reads it through the views
 * (as a processor or exporter downstream would), marshals it (as an exporter would) and the bytes
 * parse with protobuf-java.
 */
class BuiltBatchTest {
  private static final byte[] TRACE_ID = {
    0x4b,
    (byte) 0xf9,
    0x2f,
    0x35,
    0x77,
    (byte) 0xb3,
    0x4d,
    (byte) 0xa6,
    (byte) 0xa3,
    (byte) 0xce,
    (byte) 0x92,
    (byte) 0x9d,
    0x0e,
    0x0e,
    0x47,
    0x36
  };
  private static final byte[] SPAN_ID = {
    0, (byte) 0xf0, 0x67, (byte) 0xaa, 0x0b, (byte) 0xa9, 2, (byte) 0xb7
  };
  private static final byte[] PARENT_ID = {1, 2, 3, 4, 5, 6, 7, 8};
  private static final long START = 1_767_225_600_000_000_000L;

  private final BatchView views = new BatchView();
  private final AttributeCursor attributes = new AttributeCursor();
  private final AttributeCursor nested = new AttributeCursor();
  private final ArrayCursor elements = new ArrayCursor();

  @Test
  void spansReadBackThroughTheViewsAndTheMarshaler() throws Exception {
    TracesBuilder traces = new TracesBuilder();
    traces
        .resource()
        .schemaUrl("https://opentelemetry.io/schemas/1.37.0")
        .attributes()
        .put("service.name", "checkout")
        .put("service.instance.count", 3);
    traces.scope().name("dev.sluice.zipkin").version("1.0");
    SpanWriter span =
        traces
            .span()
            .name("GET /users/{id}")
            .traceId(TRACE_ID)
            .spanId(SPAN_ID)
            .parentSpanId(PARENT_ID)
            .kind(SpanKind.SERVER)
            .startTimeUnixNano(START)
            .endTimeUnixNano(START + 1_500_000)
            .status(StatusCode.ERROR, "timed out")
            .flags(0x301);
    span.attributes()
        .put("http.route", "/users/{id}")
        .put("http.response.status_code", 504)
        .putArray("http.request.header.accept")
        .add("text/html")
        .add("*/*")
        .end()
        .put("retry", true);
    span.event().name("exception").timeUnixNano(START + 1_000_000).attributes().put("n", 1.5);
    span.link().traceId(TRACE_ID).spanId(PARENT_ID).traceState("k=v").flags(1);
    traces.span().name("SELECT").kind(SpanKind.CLIENT).spanId(PARENT_ID);

    OtlpIndex index = traces.build();
    assertThat(index.signal()).isEqualTo(Signal.TRACES);
    Batch batch = Batch.of(index);
    assertThat(batch.unitCount()).isEqualTo(2);

    List<String> seen = new ArrayList<>();
    SpanEventView events = new SpanEventView();
    SpanLinkView links = new SpanLinkView();
    views.forEachSpan(
        batch,
        (resource, scope, view) -> {
          assertThat(resource.attributes(attributes).find("service.name")).isTrue();
          assertThat(attributes.value().stringValue().asString()).isEqualTo("checkout");
          assertThat(resource.schemaUrl().asString()).endsWith("1.37.0");
          assertThat(scope.name().asString()).isEqualTo("dev.sluice.zipkin");
          assertThat(scope.version().asString()).isEqualTo("1.0");
          seen.add(view.name().asString());
          if (view.nameEquals("SELECT")) {
            assertThat(view.kind()).isEqualTo(SpanKind.CLIENT);
            assertThat(view.spanIdLong()).isEqualTo(0x0102030405060708L);
            assertThat(view.traceIdHigh()).isZero();
            return;
          }
          assertThat(view.traceIdHigh()).isEqualTo(0x4bf92f3577b34da6L);
          assertThat(view.traceIdLow()).isEqualTo(0xa3ce929d0e0e4736L);
          assertThat(view.parentSpanIdLong()).isEqualTo(0x0102030405060708L);
          assertThat(view.kind()).isEqualTo(SpanKind.SERVER);
          assertThat(view.endTimeUnixNano() - view.startTimeUnixNano()).isEqualTo(1_500_000);
          assertThat(view.statusCode()).isEqualTo(StatusCode.ERROR);
          assertThat(view.statusMessage().asString()).isEqualTo("timed out");
          assertThat(view.flags()).isEqualTo(0x301);
          assertThat(view.attributes(attributes).count()).isEqualTo(4);
          assertThat(attributes.find("http.response.status_code")).isTrue();
          assertThat(attributes.value().intValue()).isEqualTo(504);
          assertThat(attributes.find("http.request.header.accept")).isTrue();
          attributes.value().array(elements);
          assertThat(elements.next()).isTrue();
          assertThat(elements.value().stringValue().asString()).isEqualTo("text/html");
          assertThat(elements.next()).isTrue();
          assertThat(elements.next()).isFalse();
          assertThat(attributes.find("retry")).isTrue();
          assertThat(attributes.value().boolValue()).isTrue();
          view.events(events);
          assertThat(events.next()).isTrue();
          assertThat(events.name().asString()).isEqualTo("exception");
          assertThat(events.attributes(nested).find("n")).isTrue();
          assertThat(nested.value().doubleValue()).isEqualTo(1.5);
          assertThat(events.next()).isFalse();
          view.links(links);
          assertThat(links.next()).isTrue();
          assertThat(links.traceState().asString()).isEqualTo("k=v");
          assertThat(links.spanIdLong()).isEqualTo(0x0102030405060708L);
          assertThat(links.flags()).isEqualTo(1);
        });
    assertThat(seen).containsExactly("GET /users/{id}", "SELECT");

    byte[] marshaled = OtlpMarshaler.toByteArray(batch);
    assertThat(marshaled).isEqualTo(traces.toByteArray());
    Span parsed =
        ExportTraceServiceRequest.parseFrom(marshaled)
            .getResourceSpans(0)
            .getScopeSpans(0)
            .getSpans(0);
    assertThat(parsed.getName()).isEqualTo("GET /users/{id}");
    assertThat(parsed.getAttributes(2).getValue().getArrayValue().getValues(1).getStringValue())
        .isEqualTo("*/*");
    assertThat(parsed.getEvents(0).getTimeUnixNano()).isEqualTo(START + 1_000_000);
    batch.clear();
  }

  @Test
  void logRecordsReadBackThroughTheViewsAndTheMarshaler() throws Exception {
    LogsBuilder logs = new LogsBuilder();
    logs.resource().attributes().put("host.name", "db-1");
    logs.scope().name("dev.sluice.syslog");
    logs.logRecord()
        .timeUnixNano(START)
        .observedTimeUnixNano(START + 5)
        .severityNumber(SeverityNumber.WARN)
        .severityText("warning")
        .traceId(TRACE_ID)
        .spanId(SPAN_ID)
        .eventName("disk.full")
        .body("disk 91% full")
        .attributes()
        .put("disk", "/dev/sda1");
    logs.logRecord()
        .kvListBody()
        .put("message", "structured")
        .putKvList("context")
        .put("attempt", 2)
        .end()
        .end();

    Batch batch = Batch.of(logs.build());
    assertThat(batch.unitCount()).isEqualTo(2);
    List<ValueType> bodies = new ArrayList<>();
    views.forEachLogRecord(
        batch,
        (resource, scope, log) -> {
          AnyValueView body = log.body();
          bodies.add(body.type());
          if (body.type() == ValueType.STRING) {
            assertThat(body.stringValue().asString()).isEqualTo("disk 91% full");
            assertThat(log.severityNumber()).isEqualTo(SeverityNumber.WARN);
            assertThat(log.severityText().asString()).isEqualTo("warning");
            assertThat(log.observedTimeUnixNano() - log.timeUnixNano()).isEqualTo(5);
            assertThat(log.traceIdHigh()).isEqualTo(0x4bf92f3577b34da6L);
            assertThat(log.spanIdLong()).isEqualTo(0x00f067aa0ba902b7L);
            assertThat(log.eventName().asString()).isEqualTo("disk.full");
            assertThat(log.attributes(attributes).find("disk")).isTrue();
          } else {
            assertThat(body.kvlist(attributes).find("context")).isTrue();
            assertThat(attributes.value().kvlist(nested).find("attempt")).isTrue();
            assertThat(nested.value().intValue()).isEqualTo(2);
          }
        });
    assertThat(bodies).containsExactly(ValueType.STRING, ValueType.KVLIST);

    byte[] marshaled = OtlpMarshaler.toByteArray(batch);
    assertThat(marshaled).isEqualTo(logs.toByteArray());
    assertThat(
            ExportLogsServiceRequest.parseFrom(marshaled)
                .getResourceLogs(0)
                .getScopeLogs(0)
                .getLogRecords(1)
                .getBody()
                .getKvlistValue()
                .getValues(0)
                .getValue()
                .getStringValue())
        .isEqualTo("structured");
    batch.clear();
  }

  @Test
  void metricsOfEveryKindReadBackThroughTheViewsAndTheMarshaler() throws Exception {
    MetricsBuilder metrics = new MetricsBuilder();
    metrics.resource().attributes().put("service.name", "checkout");
    metrics.scope().name("dev.sluice.spanmetrics");
    MetricWriter calls =
        metrics.metric().name("calls").unit("{call}").sum(AggregationTemporality.CUMULATIVE, true);
    calls.numberPoint().timeUnixNano(START).intValue(42).attributes().put("span.name", "GET");
    calls.numberPoint().timeUnixNano(START).intValue(7).attributes().put("span.name", "PUT");
    metrics.metric().name("load").gauge().numberPoint().doubleValue(0.75);
    metrics
        .metric()
        .name("duration")
        .unit("ms")
        .histogram(AggregationTemporality.DELTA)
        .histogramPoint()
        .count(42)
        .sum(1234.5)
        .min(0.5)
        .max(250)
        .buckets(new double[] {10, 100}, new long[] {30, 10, 2})
        .exemplar()
        .doubleValue(250)
        .traceId(TRACE_ID)
        .spanId(SPAN_ID);
    metrics
        .metric()
        .name("size")
        .exponentialHistogram(AggregationTemporality.DELTA)
        .exponentialHistogramPoint()
        .count(6)
        .scale(3)
        .zeroCount(1)
        .zeroThreshold(1e-9)
        .positive(-2, new long[] {1, 2})
        .negative(4, new long[] {2});
    metrics
        .metric()
        .name("latency")
        .summary()
        .summaryPoint()
        .count(10)
        .sum(55)
        .quantile(0.5, 5)
        .quantile(0.99, 9.9);

    Batch batch = Batch.of(metrics.build());
    assertThat(batch.unitCount()).isEqualTo(6);
    Map<String, MetricType> types = new java.util.LinkedHashMap<>();
    DataPointView points = new DataPointView();
    views.forEachMetric(
        batch,
        (resource, scope, metric) -> {
          String name = metric.name().asString();
          types.put(name, metric.type());
          metric.dataPoints(points);
          assertThat(points.next()).isTrue();
          switch (name) {
            case "calls" -> {
              assertThat(metric.aggregationTemporality())
                  .isEqualTo(AggregationTemporality.CUMULATIVE);
              assertThat(metric.isMonotonic()).isTrue();
              assertThat(metric.dataPointCount()).isEqualTo(2);
              assertThat(points.isInt()).isTrue();
              assertThat(points.intValue()).isEqualTo(42);
              assertThat(points.attributes(attributes).find("span.name")).isTrue();
            }
            case "load" -> assertThat(points.doubleValue()).isEqualTo(0.75);
            case "duration" -> {
              assertThat(points.count()).isEqualTo(42);
              assertThat(points.sum()).isEqualTo(1234.5);
              assertThat(points.min()).isEqualTo(0.5);
              assertThat(points.max()).isEqualTo(250);
              assertThat(points.explicitBoundsCount()).isEqualTo(2);
              assertThat(points.bucketCountsCount()).isEqualTo(3);
              assertThat(points.bucketCount(2)).isEqualTo(2);
            }
            case "size" -> {
              assertThat(points.scale()).isEqualTo(3);
              assertThat(points.zeroCount()).isEqualTo(1);
              assertThat(points.zeroThreshold()).isEqualTo(1e-9);
              assertThat(points.positiveOffset()).isEqualTo(-2);
              assertThat(points.positiveBucketCount(1)).isEqualTo(2);
              assertThat(points.negativeOffset()).isEqualTo(4);
            }
            case "latency" -> {
              assertThat(points.quantileValuesCount()).isEqualTo(2);
              assertThat(points.quantile(1)).isEqualTo(0.99);
              assertThat(points.quantileValue(1)).isEqualTo(9.9);
            }
            default -> throw new AssertionError(name);
          }
        });
    assertThat(types)
        .containsExactly(
            Map.entry("calls", MetricType.SUM),
            Map.entry("load", MetricType.GAUGE),
            Map.entry("duration", MetricType.HISTOGRAM),
            Map.entry("size", MetricType.EXPONENTIAL_HISTOGRAM),
            Map.entry("latency", MetricType.SUMMARY));

    byte[] marshaled = OtlpMarshaler.toByteArray(batch);
    assertThat(marshaled).isEqualTo(metrics.toByteArray());
    HistogramDataPoint histogram =
        ExportMetricsServiceRequest.parseFrom(marshaled)
            .getResourceMetrics(0)
            .getScopeMetrics(0)
            .getMetrics(2)
            .getHistogram()
            .getDataPoints(0);
    assertThat(histogram.getExemplars(0).getAsDouble()).isEqualTo(250);
    assertThat(histogram.getBucketCountsList()).containsExactly(30L, 10L, 2L);
    batch.clear();
  }

  @Test
  void aResetBuilderWritesWhatANewOneWrites() {
    TracesBuilder reused = new TracesBuilder();
    reused.resource().attributes().put("a", "left over").putArray("open");
    reused.reset();
    reused.resource();
    reused.scope().name("s");
    reused.span().name("after reset");

    TracesBuilder fresh = new TracesBuilder();
    fresh.resource();
    fresh.scope().name("s");
    fresh.span().name("after reset");

    assertThat(reused.toByteArray()).isEqualTo(fresh.toByteArray());
  }

  @Test
  void anEmptyBuilderWritesAnEmptyRequest() {
    assertThat(new MetricsBuilder().toByteArray()).isEmpty();
    assertThat(new MetricsBuilder().build().itemCount()).isZero();
  }
}
