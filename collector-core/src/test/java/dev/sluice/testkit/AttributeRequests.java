package dev.sluice.testkit;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** Requests and attribute values built with protobuf-java, for the attribute processors' tests. */
public final class AttributeRequests {
  private AttributeRequests() {}

  public static AnyValue str(String value) {
    return AnyValue.newBuilder().setStringValue(value).build();
  }

  public static AnyValue integer(long value) {
    return AnyValue.newBuilder().setIntValue(value).build();
  }

  public static AnyValue dbl(double value) {
    return AnyValue.newBuilder().setDoubleValue(value).build();
  }

  public static AnyValue bool(boolean value) {
    return AnyValue.newBuilder().setBoolValue(value).build();
  }

  public static AnyValue bytes(byte... value) {
    return AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(value)).build();
  }

  public static AnyValue array(AnyValue... values) {
    return AnyValue.newBuilder()
        .setArrayValue(ArrayValue.newBuilder().addAllValues(List.of(values)))
        .build();
  }

  public static AnyValue kvlist(KeyValue... entries) {
    return AnyValue.newBuilder()
        .setKvlistValue(KeyValueList.newBuilder().addAllValues(List.of(entries)))
        .build();
  }

  public static KeyValue kv(String key, AnyValue value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }

  /** One attribute of each value type, the empty value included. */
  public static List<KeyValue> everyType() {
    return List.of(
        kv("s", str("text é")),
        kv("i", integer(-7)),
        kv("d", dbl(2.5)),
        kv("b", bool(true)),
        kv("y", bytes((byte) 1, (byte) 0xff)),
        kv("a", array(str("x"), integer(1))),
        kv("m", kvlist(kv("k", str("v")))),
        kv("e", AnyValue.getDefaultInstance()));
  }

  public static List<KeyValue> plus(List<KeyValue> attributes, KeyValue... more) {
    List<KeyValue> all = new ArrayList<>(attributes);
    all.addAll(List.of(more));
    return all;
  }

  public static Resource resource(KeyValue... attributes) {
    return Resource.newBuilder().addAllAttributes(List.of(attributes)).build();
  }

  public static Resource service(String name) {
    return resource(kv("service.name", str(name)));
  }

  public static Span span(String name, List<KeyValue> attributes) {
    return Span.newBuilder()
        .setTraceId(ByteString.copyFrom(new byte[16]))
        .setSpanId(ByteString.copyFrom(new byte[8]))
        .setName(name)
        .setKind(Span.SpanKind.SPAN_KIND_SERVER)
        .addAllAttributes(attributes)
        .build();
  }

  public static ExportTraceServiceRequest traces(Resource resource, Span... spans) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(resource)
                .addScopeSpans(
                    ScopeSpans.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName("lib").setVersion("1"))
                        .addAllSpans(List.of(spans))))
        .build();
  }

  public static LogRecord log(String body, List<KeyValue> attributes) {
    return LogRecord.newBuilder()
        .setBody(str(body))
        .setSeverityText("INFO")
        .addAllAttributes(attributes)
        .build();
  }

  public static ExportLogsServiceRequest logs(Resource resource, LogRecord... records) {
    return ExportLogsServiceRequest.newBuilder()
        .addResourceLogs(
            ResourceLogs.newBuilder()
                .setResource(resource)
                .addScopeLogs(
                    ScopeLogs.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName("lib"))
                        .addAllLogRecords(List.of(records))))
        .build();
  }

  public static Metric gauge(String name, List<KeyValue>... points) {
    Gauge.Builder gauge = Gauge.newBuilder();
    for (List<KeyValue> attributes : points) {
      gauge.addDataPoints(NumberDataPoint.newBuilder().setAsInt(1).addAllAttributes(attributes));
    }
    return Metric.newBuilder().setName(name).setGauge(gauge).build();
  }

  public static Metric histogram(String name, List<KeyValue> attributes) {
    return Metric.newBuilder()
        .setName(name)
        .setHistogram(
            Histogram.newBuilder()
                .addDataPoints(
                    HistogramDataPoint.newBuilder().setCount(2).addAllAttributes(attributes)))
        .build();
  }

  public static ExportMetricsServiceRequest metrics(Resource resource, Metric... metrics) {
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .setResource(resource)
                .addScopeMetrics(
                    ScopeMetrics.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName("lib"))
                        .addAllMetrics(List.of(metrics))))
        .build();
  }

  /** The message with an unknown varint field 1000 = 7 added. */
  public static <M extends Message> M withUnknownField(M message) {
    UnknownFieldSet unknown =
        UnknownFieldSet.newBuilder()
            .addField(1000, UnknownFieldSet.Field.newBuilder().addVarint(7).build())
            .build();
    @SuppressWarnings("unchecked")
    M withField = (M) message.toBuilder().setUnknownFields(unknown).build();
    return withField;
  }

  /** SHA-256 hex of the bytes, computed here independently of the processor. */
  public static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  public static String sha256(String text) {
    return sha256(text.getBytes(StandardCharsets.UTF_8));
  }

  /** What Go hashes for an int: its 8 little-endian bytes. */
  public static String sha256(long value) {
    return sha256(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array());
  }

  public static String sha256(double value) {
    return sha256(Double.doubleToRawLongBits(value));
  }
}
