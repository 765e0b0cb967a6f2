package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeValue;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.metrics.v1.Summary;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Attribute actions of every kind and value type, applied through the typed editors to every
 * message that has attributes (spans, log records, data points of every type, resources, scopes),
 * checked against the same edit made with protobuf-java's builders.
 */
class AttributeActionsApplyTest {
  private final OtlpIndexer indexer = new OtlpIndexer();

  /** One action, applied both ways: by the editors and to a protobuf-java attribute list. */
  record Edit(
      String name,
      UnaryOperator<AttributeActions.Builder> configure,
      UnaryOperator<List<KeyValue>> reference) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final List<KeyValue> ORIGINAL =
      List.of(
          kv("http.method", string("GET")),
          kv("count", AnyValue.newBuilder().setIntValue(3).build()),
          kv("ok", AnyValue.newBuilder().setBoolValue(true).build()));

  static KeyValue kv(String key, AnyValue value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }

  static AnyValue string(String value) {
    return AnyValue.newBuilder().setStringValue(value).build();
  }

  /** Each typed value, as the editor takes it and as protobuf-java holds it. */
  record Typed(String name, AttributeValue value, AnyValue proto) {}

  static List<Typed> values() {
    byte[] bytes = {1, 2, 3, (byte) 0xff};
    return List.of(
        new Typed("string", AttributeValue.string("é-value"), string("é-value")),
        new Typed(
            "bool", AttributeValue.bool(false), AnyValue.newBuilder().setBoolValue(false).build()),
        new Typed("int", AttributeValue.integer(-5), AnyValue.newBuilder().setIntValue(-5).build()),
        new Typed(
            "double",
            AttributeValue.floating(2.5),
            AnyValue.newBuilder().setDoubleValue(2.5).build()),
        new Typed(
            "bytes",
            AttributeValue.bytes(bytes),
            AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(bytes)).build()));
  }

  static Stream<Edit> edits() {
    List<Edit> edits = new ArrayList<>();
    for (Typed typed : values()) {
      for (String key : List.of("http.method", "new.key")) {
        String where = key.equals("new.key") ? " absent " : " present ";
        edits.add(
            new Edit(
                "insert" + where + typed.name(),
                e -> e.insert(key, typed.value()),
                list -> insert(list, key, typed.proto())));
        edits.add(
            new Edit(
                "update" + where + typed.name(),
                e -> e.update(key, typed.value()),
                list -> update(list, key, typed.proto())));
        edits.add(
            new Edit(
                "upsert" + where + typed.name(),
                e -> e.upsert(key, typed.value()),
                list -> upsert(list, key, typed.proto())));
      }
    }
    edits.add(
        new Edit("delete present", e -> e.delete("count", null), list -> delete(list, "count")));
    edits.add(new Edit("delete absent", e -> e.delete("nope", null), list -> delete(list, "nope")));
    edits.add(
        new Edit(
            "rename to a new key",
            e -> e.rename("count", "n"),
            list -> rename(list, "count", "n")));
    edits.add(
        new Edit(
            "rename onto a present key",
            e -> e.rename("count", "ok"),
            list -> rename(list, "count", "ok")));
    edits.add(
        new Edit("rename absent", e -> e.rename("nope", "n"), list -> rename(list, "nope", "n")));
    edits.add(
        new Edit(
            "several in order",
            e ->
                e.rename("http.method", "method")
                    .upsert("method", AttributeValue.string("PUT"))
                    .delete("ok", null)
                    .insert("env", AttributeValue.string("prod")),
            list ->
                insert(
                    delete(
                        upsert(rename(list, "http.method", "method"), "method", string("PUT")),
                        "ok"),
                    "env",
                    string("prod"))));
    return edits.stream();
  }

  static List<KeyValue> insert(List<KeyValue> list, String key, AnyValue value) {
    List<KeyValue> out = new ArrayList<>(list);
    if (list.stream().noneMatch(a -> a.getKey().equals(key))) {
      out.add(kv(key, value));
    }
    return out;
  }

  static List<KeyValue> update(List<KeyValue> list, String key, AnyValue value) {
    return list.stream().map(a -> a.getKey().equals(key) ? kv(key, value) : a).toList();
  }

  static List<KeyValue> upsert(List<KeyValue> list, String key, AnyValue value) {
    return list.stream().anyMatch(a -> a.getKey().equals(key))
        ? update(list, key, value)
        : insert(list, key, value);
  }

  static List<KeyValue> delete(List<KeyValue> list, String key) {
    return list.stream().filter(a -> !a.getKey().equals(key)).toList();
  }

  static List<KeyValue> rename(List<KeyValue> list, String key, String newKey) {
    if (list.stream().noneMatch(a -> a.getKey().equals(key))) {
      return list;
    }
    return list.stream()
        .filter(a -> !a.getKey().equals(newKey))
        .map(a -> a.getKey().equals(key) ? a.toBuilder().setKey(newKey).build() : a)
        .toList();
  }

  private static Span span() {
    return Span.newBuilder()
        .setTraceId(ByteString.copyFrom(new byte[16]))
        .setName("GET /")
        .setStartTimeUnixNano(1)
        .addAllAttributes(ORIGINAL)
        .addEvents(
            Span.Event.newBuilder().setName("event").addAttributes(kv("count", string("not me"))))
        .setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_OK))
        .build();
  }

  private static ExportTraceServiceRequest traces(
      Span span, Resource resource, InstrumentationScope scope) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(resource)
                .setSchemaUrl("https://schema")
                .addScopeSpans(
                    ScopeSpans.newBuilder().setScope(scope).addSpans(span).addSpans(span)))
        .build();
  }

  private static Resource resource() {
    return Resource.newBuilder().addAllAttributes(ORIGINAL).setDroppedAttributesCount(2).build();
  }

  private static InstrumentationScope scope() {
    return InstrumentationScope.newBuilder()
        .setName("lib")
        .setVersion("1.0")
        .addAllAttributes(ORIGINAL)
        .build();
  }

  private <T extends Message> byte[] edited(
      Signal signal, T request, AttributeActions actions, boolean headers) throws Exception {
    Batch batch = Batch.of(indexer.index(signal, request.toByteArray()));
    batch.visit(
        item -> {
          ActionVisitors.apply(item, actions);
          if (headers) {
            item.editResource().apply(actions);
            item.editScope().apply(actions);
          }
        });
    return OtlpMarshaler.toByteArray(batch);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("edits")
  void editsSpanAttributesAsProtobufJavaWould(Edit edit) throws Exception {
    AttributeActions editor = edit.configure().apply(AttributeActions.builder()).build();

    byte[] output = edited(Signal.TRACES, traces(span(), resource(), scope()), editor, false);

    Span expected =
        span().toBuilder()
            .clearAttributes()
            .addAllAttributes(edit.reference().apply(ORIGINAL))
            .build();
    assertThat(ExportTraceServiceRequest.parseFrom(output))
        .isEqualTo(traces(expected, resource(), scope()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("edits")
  void editsResourceAndScopeAttributesOncePerBlock(Edit edit) throws Exception {
    AttributeActions editor = edit.configure().apply(AttributeActions.builder()).build();

    byte[] output = edited(Signal.TRACES, traces(span(), resource(), scope()), editor, true);

    List<KeyValue> attributes = edit.reference().apply(ORIGINAL);
    ExportTraceServiceRequest expected =
        traces(
            span().toBuilder().clearAttributes().addAllAttributes(attributes).build(),
            resource().toBuilder().clearAttributes().addAllAttributes(attributes).build(),
            scope().toBuilder().clearAttributes().addAllAttributes(attributes).build());
    assertThat(ExportTraceServiceRequest.parseFrom(output)).isEqualTo(expected);
  }

  @Test
  void editsLogRecordAttributes() throws Exception {
    LogRecord record =
        LogRecord.newBuilder()
            .setTimeUnixNano(3)
            .setBody(string("body"))
            .addAllAttributes(ORIGINAL)
            .build();
    ExportLogsServiceRequest request =
        ExportLogsServiceRequest.newBuilder()
            .addResourceLogs(
                ResourceLogs.newBuilder()
                    .setResource(resource())
                    .addScopeLogs(ScopeLogs.newBuilder().setScope(scope()).addLogRecords(record)))
            .build();
    AttributeActions editor =
        AttributeActions.builder()
            .upsert("count", AttributeValue.integer(4))
            .rename("ok", "fine")
            .build();

    byte[] output = edited(Signal.LOGS, request, editor, false);

    List<KeyValue> attributes =
        rename(
            upsert(ORIGINAL, "count", AnyValue.newBuilder().setIntValue(4).build()), "ok", "fine");
    ExportLogsServiceRequest.Builder expected = request.toBuilder();
    expected
        .getResourceLogsBuilder(0)
        .getScopeLogsBuilder(0)
        .getLogRecordsBuilder(0)
        .clearAttributes()
        .addAllAttributes(attributes);
    assertThat(ExportLogsServiceRequest.parseFrom(output)).isEqualTo(expected.build());
  }

  @Test
  void editsDataPointAttributesOfEveryMetricType() throws Exception {
    NumberDataPoint number =
        NumberDataPoint.newBuilder()
            .setAsDouble(1.5)
            .setTimeUnixNano(9)
            .addAllAttributes(ORIGINAL)
            .build();
    HistogramDataPoint histogram =
        HistogramDataPoint.newBuilder()
            .setCount(2)
            .addBucketCounts(2)
            .addAllAttributes(ORIGINAL)
            .build();
    ExponentialHistogramDataPoint exponential =
        ExponentialHistogramDataPoint.newBuilder()
            .setCount(1)
            .setScale(2)
            .addAllAttributes(ORIGINAL)
            .build();
    SummaryDataPoint summary =
        SummaryDataPoint.newBuilder().setCount(4).setSum(8).addAllAttributes(ORIGINAL).build();
    UnaryOperator<List<KeyValue>> reference =
        list -> insert(delete(list, "http.method"), "region", string("eu"));
    ExportMetricsServiceRequest request =
        metrics(number, histogram, exponential, summary, UnaryOperator.identity());
    AttributeActions editor =
        AttributeActions.builder()
            .delete("http.method", null)
            .insert("region", AttributeValue.string("eu"))
            .build();

    byte[] output = edited(Signal.METRICS, request, editor, false);

    assertThat(ExportMetricsServiceRequest.parseFrom(output))
        .isEqualTo(metrics(number, histogram, exponential, summary, reference));
  }

  private static ExportMetricsServiceRequest metrics(
      NumberDataPoint number,
      HistogramDataPoint histogram,
      ExponentialHistogramDataPoint exponential,
      SummaryDataPoint summary,
      UnaryOperator<List<KeyValue>> edit) {
    NumberDataPoint n =
        number.toBuilder()
            .clearAttributes()
            .addAllAttributes(edit.apply(number.getAttributesList()))
            .build();
    HistogramDataPoint h =
        histogram.toBuilder()
            .clearAttributes()
            .addAllAttributes(edit.apply(histogram.getAttributesList()))
            .build();
    ExponentialHistogramDataPoint e =
        exponential.toBuilder()
            .clearAttributes()
            .addAllAttributes(edit.apply(exponential.getAttributesList()))
            .build();
    SummaryDataPoint s =
        summary.toBuilder()
            .clearAttributes()
            .addAllAttributes(edit.apply(summary.getAttributesList()))
            .build();
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .setResource(resource())
                .addScopeMetrics(
                    ScopeMetrics.newBuilder()
                        .setScope(scope())
                        .addMetrics(
                            Metric.newBuilder()
                                .setName("g")
                                .setGauge(Gauge.newBuilder().addDataPoints(n).addDataPoints(n)))
                        .addMetrics(
                            Metric.newBuilder()
                                .setName("s")
                                .setSum(Sum.newBuilder().setIsMonotonic(true).addDataPoints(n)))
                        .addMetrics(
                            Metric.newBuilder()
                                .setName("h")
                                .setHistogram(Histogram.newBuilder().addDataPoints(h)))
                        .addMetrics(
                            Metric.newBuilder()
                                .setName("e")
                                .setExponentialHistogram(
                                    ExponentialHistogram.newBuilder().addDataPoints(e)))
                        .addMetrics(
                            Metric.newBuilder()
                                .setName("q")
                                .setSummary(Summary.newBuilder().addDataPoints(s)))))
        .build();
  }

  @Test
  void anItemTheActionsLeaveAloneIsNotReplaced() throws Exception {
    Batch batch =
        Batch.of(indexer.index(Signal.TRACES, traces(span(), resource(), scope()).toByteArray()));
    AttributeActions actions =
        AttributeActions.builder()
            .update("absent", AttributeValue.bool(true))
            .delete("also.absent", null)
            .build();

    batch.visit(
        item -> {
          item.editSpan().apply(actions);
          item.editResource().apply(actions);
          item.editScope().apply(actions);
        });

    assertThat(batch.slice(0).overlay()).isNull();
  }
}
