package dev.sluice.pdata.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OtlpJsonTest {
  private static final Pattern HEX_ID =
      Pattern.compile("\"(traceId|spanId|parentSpanId)\"\\s*:\\s*\"([0-9A-Fa-f]*)\"");

  private final OtlpJsonDecoder decoder = new OtlpJsonDecoder();
  private final OtlpJsonEncoder encoder = new OtlpJsonEncoder();

  @ParameterizedTest
  @CsvSource({
    "trace.json, TRACES",
    "metrics.json, METRICS",
    "logs.json, LOGS",
    "events.json, LOGS"
  })
  void specificationExamplesDecodeToTheMessageProtobufJavaBuilds(String file, Signal signal)
      throws Exception {
    String json = resource("/otlp-examples/" + file);

    byte[] protobuf = decoder.decode(signal, json.getBytes(StandardCharsets.UTF_8));

    Message expected = protobufJavaParse(signal, json);
    assertThat(parse(signal, protobuf)).isEqualTo(expected);
    assertThat(new OtlpIndexer().index(signal, protobuf).unitCount()).isPositive();
  }

  @ParameterizedTest
  @CsvSource({
    "trace.json, TRACES",
    "metrics.json, METRICS",
    "logs.json, LOGS",
    "events.json, LOGS"
  })
  void specificationExamplesRoundTripThroughJson(String file, Signal signal) throws Exception {
    byte[] protobuf = decoder.decode(signal, resource("/otlp-examples/" + file).getBytes(UTF8));

    byte[] json = encoder.encode(signal, protobuf, 0, protobuf.length);

    assertThat(decoder.decode(signal, json)).isEqualTo(protobuf);
    assertThat(protobufJavaParse(signal, new String(json, UTF8)))
        .isEqualTo(parse(signal, protobuf));
  }

  @Test
  void encodesOtlpJsonConventions() throws Exception {
    ExportTraceServiceRequest request = richTraces();
    byte[] bytes = request.toByteArray();

    String json = new String(encoder.encode(Signal.TRACES, bytes, 0, bytes.length), UTF8);

    assertThat(json)
        .contains("\"traceId\":\"0102030405060708090a0b0c0d0e0f10\"")
        .contains("\"spanId\":\"a1a2a3a4a5a6a7a8\"")
        .contains("\"startTimeUnixNano\":\"18446744073709551615\"")
        .contains("\"kind\":2")
        .contains("\"intValue\":\"-42\"")
        .contains("\"doubleValue\":\"NaN\"")
        .contains("\"bytesValue\":\"AP8=\"")
        .doesNotContain("trace_id");
    assertThat(
            ExportTraceServiceRequest.parseFrom(decoder.decode(Signal.TRACES, json.getBytes(UTF8))))
        .isEqualTo(request);
  }

  @Test
  void roundTripsEveryMetricKind() throws Exception {
    Metric histogram =
        Metric.newBuilder()
            .setName("latency")
            .setHistogram(
                Histogram.newBuilder()
                    .setAggregationTemporalityValue(2)
                    .addDataPoints(
                        HistogramDataPoint.newBuilder()
                            .setCount(3)
                            .setSum(0)
                            .setMin(-1.5)
                            .addBucketCounts(1)
                            .addBucketCounts(2)
                            .addExplicitBounds(0.5)))
            .build();
    ExponentialHistogramDataPoint.Buckets buckets =
        ExponentialHistogramDataPoint.Buckets.newBuilder()
            .setOffset(-7)
            .addBucketCounts(Long.MAX_VALUE)
            .addBucketCounts(-1L)
            .build();
    Metric exponential =
        Metric.newBuilder()
            .setName("exp")
            .setExponentialHistogram(
                ExponentialHistogram.newBuilder()
                    .addDataPoints(
                        ExponentialHistogramDataPoint.newBuilder()
                            .setScale(-3)
                            .setZeroThreshold(1e-9)
                            .setPositive(buckets)))
            .build();
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .addScopeMetrics(
                        ScopeMetrics.newBuilder().addMetrics(histogram).addMetrics(exponential)))
            .build();
    byte[] bytes = request.toByteArray();

    byte[] json = encoder.encode(Signal.METRICS, bytes, 0, bytes.length);

    assertThat(ExportMetricsServiceRequest.parseFrom(decoder.decode(Signal.METRICS, json)))
        .isEqualTo(request);
    assertThat(protobufJavaParse(Signal.METRICS, new String(json, UTF8))).isEqualTo(request);
  }

  @Test
  void acceptsProtoFieldNamesNumbersForStringsEnumNamesAndIgnoresUnknownKeys() throws Exception {
    String json =
        "{\"resource_spans\":[{\"scope_spans\":[{\"spans\":[{"
            + "\"trace_id\":\"0102030405060708090A0B0C0D0E0F10\","
            + "\"name\":\"x\",\"kind\":\"SPAN_KIND_CLIENT\","
            + "\"startTimeUnixNano\":1544712660000000000,"
            + "\"droppedAttributesCount\":\"3\","
            + "\"status\":{\"code\":\"STATUS_CODE_ERROR\"},"
            + "\"notAField\":{\"nested\":[1,2,{\"x\":null}]},"
            + "\"attributes\":null"
            + "}]}]}],\"extra\":true}";

    Span span =
        ExportTraceServiceRequest.parseFrom(decoder.decode(Signal.TRACES, json.getBytes(UTF8)))
            .getResourceSpans(0)
            .getScopeSpans(0)
            .getSpans(0);

    assertThat(span.getTraceId().toByteArray())
        .isEqualTo(HexFormat.of().parseHex("0102030405060708090a0b0c0d0e0f10"));
    assertThat(span.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CLIENT);
    assertThat(span.getStartTimeUnixNano()).isEqualTo(1544712660000000000L);
    assertThat(span.getDroppedAttributesCount()).isEqualTo(3);
    assertThat(span.getStatus().getCode()).isEqualTo(Status.StatusCode.STATUS_CODE_ERROR);
  }

  @Test
  void rejectsBadTraceIdWithFieldPath() {
    String json =
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"a\"},"
            + "{\"traceId\":\"xyz\"}]}]}]}";

    assertThatThrownBy(() -> decoder.decode(Signal.TRACES, json.getBytes(UTF8)))
        .isInstanceOf(MalformedOtlpException.class)
        .hasMessageStartingWith(
            "resource_spans[0].scope_spans[0].spans[1].trace_id: expected 32 hex digits")
        .hasMessageEndingWith("at offset " + json.indexOf("\"xyz\""));
  }

  /** A metric's data is a oneof; protobuf-java's JSON parser refuses a second member too. */
  @Test
  void rejectsASecondDataMessageInAMetricWithFieldPath() {
    String json =
        "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"m\","
            + "\"gauge\":{\"dataPoints\":[{\"asDouble\":1}]},"
            + "\"histogram\":{\"dataPoints\":[]}}]}]}]}";

    assertThatThrownBy(() -> decoder.decode(Signal.METRICS, json.getBytes(UTF8)))
        .isInstanceOf(MalformedOtlpException.class)
        .hasMessageStartingWith(
            "resource_metrics[0].scope_metrics[0].metrics[0].histogram: "
                + "a metric holds one data message, found histogram after gauge")
        .satisfies(
            e ->
                assertThat(((MalformedOtlpException) e).kind())
                    .isEqualTo(MalformedOtlpException.Kind.DATA_MESSAGES));
  }

  @Test
  void rejectsWrongValueTypesWithFieldPath() {
    assertThatThrownBy(
            () ->
                decoder.decode(
                    Signal.LOGS,
                    "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"severityNumber\":true}]}]}]}"
                        .getBytes(UTF8)))
        .isInstanceOf(MalformedOtlpException.class)
        .hasMessageStartingWith(
            "resource_logs[0].scope_logs[0].log_records[0].severity_number: expected an integer");
    assertThatThrownBy(
            () -> decoder.decode(Signal.TRACES, "{\"resourceSpans\":{\"x\":1}}".getBytes(UTF8)))
        .hasMessageStartingWith("resource_spans: expected an array");
    assertThatThrownBy(
            () ->
                decoder.decode(
                    Signal.METRICS,
                    ("{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"sum\":"
                            + "{\"dataPoints\":[{\"asInt\":\"12x\"}]}}]}]}]}")
                        .getBytes(UTF8)))
        .hasMessageStartingWith(
            "resource_metrics[0].scope_metrics[0].metrics[0].sum.data_points[0].as_int:"
                + " expected an integer, found \"12x\"");
    assertThatThrownBy(
            () ->
                decoder.decode(
                    Signal.TRACES,
                    "{\"resourceSpans\":[{\"resource\":{\"droppedAttributesCount\":-1}}]}"
                        .getBytes(UTF8)))
        .hasMessageContaining("resource.dropped_attributes_count: integer -1 out of range");
  }

  @Test
  void rejectsMalformedJsonWithOffset() {
    byte[] json = "{\"resourceSpans\":[{\"scopeSpans\":[}]}".getBytes(UTF8);

    assertThatThrownBy(() -> decoder.decode(Signal.TRACES, json))
        .isInstanceOf(MalformedOtlpException.class)
        .hasMessageContaining("invalid JSON")
        .hasMessageEndingWith("at offset 33");
    assertThatThrownBy(() -> decoder.decode(Signal.TRACES, "[]".getBytes(UTF8)))
        .hasMessage("request: expected a JSON object at offset 0");
    assertThatThrownBy(() -> decoder.decode(Signal.TRACES, "{} {}".getBytes(UTF8)))
        .hasMessageContaining("unexpected content after the request object");
  }

  @Test
  void rejectsUnpairedSurrogates() {
    byte[] json =
        "{\"resourceSpans\":[{\"schemaUrl\":\"a\\ud800b\"}]}".getBytes(StandardCharsets.UTF_8);

    assertThatThrownBy(() -> decoder.decode(Signal.TRACES, json))
        .hasMessageStartingWith("resource_spans[0].schema_url: unpaired UTF-16 surrogate");
  }

  @Test
  void rejectsNestingPastTheLimit() {
    StringBuilder value = new StringBuilder();
    int depth = 200;
    for (int i = 0; i < depth; i++) {
      value.append("{\"arrayValue\":{\"values\":[");
    }
    value.append("{\"intValue\":1}");
    for (int i = 0; i < depth; i++) {
      value.append("]}}");
    }
    String json =
        "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"k\",\"value\":"
            + value
            + "}]}}]}";

    assertThatThrownBy(() -> decoder.decode(Signal.TRACES, json.getBytes(UTF8)))
        .isInstanceOf(MalformedOtlpException.class)
        .hasMessageContaining("nest");
  }

  private static ExportTraceServiceRequest richTraces() {
    AnyValue nested =
        AnyValue.newBuilder()
            .setKvlistValue(
                KeyValueList.newBuilder()
                    .addValues(kv("inner", AnyValue.newBuilder().setBoolValue(true).build()))
                    .addValues(
                        kv(
                            "list",
                            AnyValue.newBuilder()
                                .setArrayValue(
                                    ArrayValue.newBuilder()
                                        .addValues(AnyValue.newBuilder().setStringValue("é😀"))
                                        .addValues(AnyValue.newBuilder().setDoubleValue(-0.0)))
                                .build())))
            .build();
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .addScopeSpans(
                    ScopeSpans.newBuilder()
                        .addSpans(
                            Span.newBuilder()
                                .setTraceId(
                                    ByteString.copyFrom(
                                        HexFormat.of()
                                            .parseHex("0102030405060708090a0b0c0d0e0f10")))
                                .setSpanId(
                                    ByteString.copyFrom(
                                        HexFormat.of().parseHex("a1a2a3a4a5a6a7a8")))
                                .setKind(Span.SpanKind.SPAN_KIND_SERVER)
                                .setStartTimeUnixNano(-1L)
                                .setFlags(0xFFFFFFFF)
                                .addAttributes(
                                    kv("n", AnyValue.newBuilder().setIntValue(-42).build()))
                                .addAttributes(
                                    kv(
                                        "d",
                                        AnyValue.newBuilder().setDoubleValue(Double.NaN).build()))
                                .addAttributes(
                                    kv(
                                        "b",
                                        AnyValue.newBuilder()
                                            .setBytesValue(ByteString.copyFrom(new byte[] {0, -1}))
                                            .build()))
                                .addAttributes(
                                    kv("s", AnyValue.newBuilder().setStringValue("").build()))
                                .addAttributes(kv("nested", nested))
                                .setStatus(
                                    Status.newBuilder()
                                        .setCode(Status.StatusCode.STATUS_CODE_OK)))))
        .build();
  }

  private static KeyValue kv(String key, AnyValue value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }

  private static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  private static String resource(String name) throws IOException {
    try (InputStream in = OtlpJsonTest.class.getResourceAsStream(name)) {
      assertThat(in).as(name).isNotNull();
      return new String(in.readAllBytes(), UTF8);
    }
  }

  /** protobuf-java's JSON parser, after turning OTLP's hex IDs into proto3 JSON's base64. */
  static Message protobufJavaParse(Signal signal, String otlpJson) throws Exception {
    Matcher m = HEX_ID.matcher(otlpJson);
    StringBuilder json = new StringBuilder();
    while (m.find()) {
      String base64 = Base64.getEncoder().encodeToString(HexFormat.of().parseHex(m.group(2)));
      m.appendReplacement(json, "\"" + m.group(1) + "\":\"" + base64 + "\"");
    }
    m.appendTail(json);
    Message.Builder builder = builder(signal);
    JsonFormat.parser().merge(json.toString(), builder);
    return builder.build();
  }

  private static Message.Builder builder(Signal signal) {
    switch (signal) {
      case TRACES:
        return ExportTraceServiceRequest.newBuilder();
      case METRICS:
        return ExportMetricsServiceRequest.newBuilder();
      default:
        return ExportLogsServiceRequest.newBuilder();
    }
  }

  static Message parse(Signal signal, byte[] bytes) throws Exception {
    return builder(signal).mergeFrom(bytes).build();
  }
}
