package dev.sluice.pdata.internal;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.EntityRef;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Exemplar;
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
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Valid OTLP requests built with the opentelemetry-proto builders, with every kind of field set.
 * Adjacent resource blocks and scope blocks get headers of different lengths, so that no change of
 * one byte makes two of them equal (the marshaler would merge them).
 */
final class OtlpTestData {
  private OtlpTestData() {}

  static ByteString id(int length, int seed) {
    byte[] bytes = new byte[length];
    for (int i = 0; i < length; i++) {
      bytes[i] = (byte) (seed * 31 + i * 7 + 1);
    }
    return ByteString.copyFrom(bytes);
  }

  static KeyValue attribute(String key, AnyValue value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }

  static AnyValue string(String value) {
    return AnyValue.newBuilder().setStringValue(value).build();
  }

  static AnyValue array(AnyValue... values) {
    return AnyValue.newBuilder()
        .setArrayValue(ArrayValue.newBuilder().addAllValues(Arrays.asList(values)))
        .build();
  }

  static AnyValue kvlist(KeyValue... values) {
    return AnyValue.newBuilder()
        .setKvlistValue(KeyValueList.newBuilder().addAllValues(Arrays.asList(values)))
        .build();
  }

  /** Attributes of every value type, nested arrays and key-value lists included. */
  static Iterable<KeyValue> richAttributes(int seed) {
    return Arrays.asList(
        attribute("http.method", string(seed % 2 == 0 ? "GET" : "POST")),
        attribute("http.status_code", AnyValue.newBuilder().setIntValue(200 + seed).build()),
        attribute("retry.delta", AnyValue.newBuilder().setIntValue(-seed - 1).build()),
        attribute("ratio", AnyValue.newBuilder().setDoubleValue(seed / 3.0).build()),
        attribute("sampled", AnyValue.newBuilder().setBoolValue(seed % 3 == 0).build()),
        attribute(
            "blob",
            AnyValue.newBuilder()
                .setBytesValue(ByteString.copyFrom(new byte[] {0, -1, 5}))
                .build()),
        attribute("unicode", string("grüße, 世界, 🎉 #" + seed)),
        attribute("empty", AnyValue.getDefaultInstance()),
        attribute(
            "nested",
            kvlist(
                attribute("list", array(string("a"), string("bé"), array(string("deep")))),
                attribute("map", kvlist(attribute("flag", string("on")))))));
  }

  static Resource resource(int r) {
    return Resource.newBuilder()
        // Names of different lengths: no single bit flip makes two resources equal.
        .addAttributes(
            attribute("service.name", string("service-" + "abcdefgh".substring(0, r + 2))))
        .addAttributes(attribute("host.name", string("host" + r)))
        .setDroppedAttributesCount(r)
        .addEntityRefs(
            EntityRef.newBuilder()
                .setType("service")
                .addIdKeys("service.name")
                .addDescriptionKeys("host.name")
                .setSchemaUrl("https://opentelemetry.io/schemas/1.30.0"))
        .build();
  }

  static InstrumentationScope scope(int s) {
    return InstrumentationScope.newBuilder()
        .setName("io.example." + "library".substring(0, s + 3))
        .setVersion("1." + s)
        .addAttributes(attribute("scope.attr", string("v" + s)))
        .setDroppedAttributesCount(s)
        .build();
  }

  static Span span(int seed) {
    return Span.newBuilder()
        .setTraceId(id(16, seed))
        .setSpanId(id(8, seed + 100))
        .setParentSpanId(seed % 2 == 0 ? id(8, seed + 200) : ByteString.EMPTY)
        .setTraceState("vendor=value" + seed)
        .setFlags(0x101)
        .setName("operation-" + seed)
        .setKind(Span.SpanKind.forNumber(seed % 6))
        .setStartTimeUnixNano(1_700_000_000_000_000_000L + seed)
        .setEndTimeUnixNano(1_700_000_000_500_000_000L + seed)
        .addAllAttributes(richAttributes(seed))
        .setDroppedAttributesCount(seed % 4)
        .addEvents(
            Span.Event.newBuilder()
                .setTimeUnixNano(1_700_000_000_100_000_000L)
                .setName("exception")
                .addAttributes(attribute("exception.type", string("java.io.IOException")))
                .addAttributes(attribute("exception.stack", array(string("at a"), string("at b")))))
        .addEvents(Span.Event.newBuilder().setName("empty-event"))
        .setDroppedEventsCount(1)
        .addLinks(
            Span.Link.newBuilder()
                .setTraceId(id(16, seed + 1))
                .setSpanId(id(8, seed + 2))
                .setTraceState("k=v")
                .addAttributes(attribute("link.kind", string("follows")))
                .setDroppedAttributesCount(2)
                .setFlags(1))
        .setDroppedLinksCount(3)
        .setStatus(
            Status.newBuilder()
                .setCode(Status.StatusCode.forNumber(seed % 3))
                .setMessage(seed % 3 == 2 ? "failed" : ""))
        .build();
  }

  /** Resource blocks of {@code scopes[r]} scope blocks of {@code spansPerScope} spans each. */
  static ExportTraceServiceRequest traces(int[] scopes, int spansPerScope) {
    ExportTraceServiceRequest.Builder request = ExportTraceServiceRequest.newBuilder();
    int seed = 0;
    for (int r = 0; r < scopes.length; r++) {
      ResourceSpans.Builder block =
          ResourceSpans.newBuilder().setResource(resource(r)).setSchemaUrl("https://r/" + r);
      for (int s = 0; s < scopes[r]; s++) {
        ScopeSpans.Builder scope = ScopeSpans.newBuilder().setScope(scope(s));
        if (s == 1) {
          scope.setSchemaUrl("https://opentelemetry.io/schemas/1.21.0");
        }
        for (int i = 0; i < spansPerScope; i++) {
          scope.addSpans(span(seed++));
        }
        block.addScopeSpans(scope);
      }
      request.addResourceSpans(block);
    }
    return request.build();
  }

  /** A span as an instrumented HTTP server writes it: IDs, times, ten attributes, a status. */
  static Span realisticSpan(int seed) {
    return Span.newBuilder()
        .setTraceId(id(16, seed / 8))
        .setSpanId(id(8, seed))
        .setParentSpanId(seed % 8 == 0 ? ByteString.EMPTY : id(8, seed - 1))
        .setFlags(1)
        .setName("GET /api/v1/orders/{id}")
        .setKind(Span.SpanKind.SPAN_KIND_SERVER)
        .setStartTimeUnixNano(1_700_000_000_000_000_000L + seed * 1_000_000L)
        .setEndTimeUnixNano(1_700_000_000_000_000_000L + seed * 1_000_000L + 734_000L)
        .addAttributes(attribute("http.request.method", string("GET")))
        .addAttributes(attribute("url.path", string("/api/v1/orders/" + seed)))
        .addAttributes(attribute("url.scheme", string("https")))
        .addAttributes(attribute("server.address", string("orders.internal")))
        .addAttributes(attribute("server.port", AnyValue.newBuilder().setIntValue(8443).build()))
        .addAttributes(
            attribute("http.response.status_code", AnyValue.newBuilder().setIntValue(200).build()))
        .addAttributes(attribute("network.protocol.version", string("1.1")))
        .addAttributes(attribute("user_agent.original", string("curl/8.5.0")))
        .addAttributes(attribute("client.address", string("10.1.2." + seed % 256)))
        .addAttributes(attribute("http.route", string("/api/v1/orders/{id}")))
        .setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_OK))
        .build();
  }

  /** One resource block of {@code scopes} scope blocks of {@code spansPerScope} realistic spans. */
  static ExportTraceServiceRequest realisticTraces(int scopes, int spansPerScope) {
    ResourceSpans.Builder block = ResourceSpans.newBuilder().setResource(resource(0));
    int seed = 0;
    for (int s = 0; s < scopes; s++) {
      ScopeSpans.Builder scope = ScopeSpans.newBuilder().setScope(scope(s));
      for (int i = 0; i < spansPerScope; i++) {
        scope.addSpans(realisticSpan(seed++));
      }
      block.addScopeSpans(scope);
    }
    return ExportTraceServiceRequest.newBuilder().addResourceSpans(block).build();
  }

  static NumberDataPoint numberPoint(int seed, boolean asInt) {
    NumberDataPoint.Builder point =
        NumberDataPoint.newBuilder()
            .addAttributes(attribute("core", string("c" + seed)))
            .setStartTimeUnixNano(1_000L + seed)
            .setTimeUnixNano(2_000L + seed)
            .setFlags(seed % 2);
    if (asInt) {
      point.setAsInt(-5L * seed);
    } else {
      point.setAsDouble(seed * 1.5);
    }
    if (seed % 2 == 0) {
      point.addExemplars(
          Exemplar.newBuilder()
              .addFilteredAttributes(attribute("user", string("u" + seed)))
              .setTimeUnixNano(1_500L)
              .setAsDouble(0.25)
              .setSpanId(id(8, seed))
              .setTraceId(id(16, seed)));
      point.addExemplars(Exemplar.newBuilder().setAsInt(7));
    }
    return point.build();
  }

  static Metric gauge(int seed) {
    Gauge.Builder gauge = Gauge.newBuilder();
    for (int i = 0; i < 3; i++) {
      gauge.addDataPoints(numberPoint(seed + i, false));
    }
    return Metric.newBuilder()
        .setName("system.cpu.utilization")
        .setDescription("CPU")
        .setUnit("1")
        .setGauge(gauge)
        .build();
  }

  static Metric sum(int seed) {
    Sum.Builder sum =
        Sum.newBuilder()
            .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
            .setIsMonotonic(true);
    for (int i = 0; i < 4; i++) {
      sum.addDataPoints(numberPoint(seed + i, true));
    }
    return Metric.newBuilder()
        .setName("http.server.requests")
        .setUnit("{request}")
        .setSum(sum)
        .addMetadata(attribute("meta", string("data")))
        .build();
  }

  static Metric histogram(int seed) {
    Histogram.Builder histogram =
        Histogram.newBuilder()
            .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA);
    for (int i = 0; i < 2; i++) {
      histogram.addDataPoints(
          HistogramDataPoint.newBuilder()
              .addAttributes(attribute("route", string("/r" + i)))
              .setStartTimeUnixNano(10)
              .setTimeUnixNano(20 + i)
              .setCount(6 + seed)
              .setSum(12.5)
              .addAllBucketCounts(Arrays.asList(1L, 2L, 3L + seed))
              .addAllExplicitBounds(Arrays.asList(0.5, 1.0))
              .addExemplars(Exemplar.newBuilder().setAsDouble(0.7).setTimeUnixNano(15))
              .setFlags(1)
              .setMin(0.1)
              .setMax(9.75));
    }
    return Metric.newBuilder()
        .setName("http.server.duration")
        .setUnit("s")
        .setHistogram(histogram)
        .build();
  }

  static Metric exponentialHistogram(int seed) {
    ExponentialHistogram.Builder histogram =
        ExponentialHistogram.newBuilder()
            .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
    for (int i = 0; i < 2; i++) {
      histogram.addDataPoints(
          ExponentialHistogramDataPoint.newBuilder()
              .addAttributes(attribute("queue", string("q" + i)))
              .setStartTimeUnixNano(5)
              .setTimeUnixNano(6 + i)
              .setCount(40 + seed)
              .setSum(-3.5)
              .setScale(-3 + i)
              .setZeroCount(2)
              .setPositive(
                  ExponentialHistogramDataPoint.Buckets.newBuilder()
                      .setOffset(-2)
                      .addAllBucketCounts(Arrays.asList(1L, 300L, 1L << 40)))
              .setNegative(
                  ExponentialHistogramDataPoint.Buckets.newBuilder()
                      .setOffset(7)
                      .addBucketCounts(4))
              .setFlags(0)
              .addExemplars(Exemplar.newBuilder().setAsInt(-3).setSpanId(id(8, 9)))
              .setMin(-10)
              .setMax(10)
              .setZeroThreshold(1e-9));
    }
    return Metric.newBuilder().setName("queue.latency").setExponentialHistogram(histogram).build();
  }

  static Metric summary(int seed) {
    return Metric.newBuilder()
        .setName("rpc.latency")
        .setSummary(
            Summary.newBuilder()
                .addDataPoints(
                    SummaryDataPoint.newBuilder()
                        .addAttributes(attribute("method", string("Get")))
                        .setStartTimeUnixNano(1)
                        .setTimeUnixNano(2)
                        .setCount(10 + seed)
                        .setSum(55.5)
                        .addQuantileValues(
                            SummaryDataPoint.ValueAtQuantile.newBuilder()
                                .setQuantile(0.5)
                                .setValue(4))
                        .addQuantileValues(
                            SummaryDataPoint.ValueAtQuantile.newBuilder()
                                .setQuantile(0.99)
                                .setValue(9.5))
                        .setFlags(1)))
        .build();
  }

  /** The metrics in one scope block of one resource block, neither with anything else set. */
  static ExportMetricsServiceRequest metricsInOneScope(Metric.Builder... metrics) {
    ScopeMetrics.Builder scope = ScopeMetrics.newBuilder();
    for (Metric.Builder metric : metrics) {
      scope.addMetrics(metric);
    }
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(ResourceMetrics.newBuilder().addScopeMetrics(scope))
        .build();
  }

  /** Metrics of every type, and one without data. */
  static ExportMetricsServiceRequest metrics(int[] scopes) {
    ExportMetricsServiceRequest.Builder request = ExportMetricsServiceRequest.newBuilder();
    int seed = 0;
    for (int r = 0; r < scopes.length; r++) {
      ResourceMetrics.Builder block = ResourceMetrics.newBuilder().setResource(resource(r));
      for (int s = 0; s < scopes[r]; s++) {
        ScopeMetrics.Builder scope = ScopeMetrics.newBuilder().setScope(scope(s));
        scope.addMetrics(gauge(seed++));
        scope.addMetrics(sum(seed++));
        scope.addMetrics(histogram(seed++));
        scope.addMetrics(exponentialHistogram(seed++));
        scope.addMetrics(summary(seed++));
        scope.addMetrics(Metric.newBuilder().setName("no.data").setDescription("empty"));
        block.addScopeMetrics(scope);
      }
      if (r == 1) {
        block.setSchemaUrl("https://opentelemetry.io/schemas/1.21.0");
      }
      request.addResourceMetrics(block);
    }
    return request.build();
  }

  static LogRecord logRecord(int seed) {
    AnyValue body;
    switch (seed % 3) {
      case 0:
        body = string("User logged in: ñ " + seed);
        break;
      case 1:
        body =
            kvlist(
                attribute("event", string("checkout")),
                attribute("items", array(string("book"), kvlist(attribute("qty", string("2"))))));
        break;
      default:
        body = AnyValue.newBuilder().setIntValue(seed).build();
    }
    return LogRecord.newBuilder()
        .setTimeUnixNano(1_700_000_000_000_000_000L + seed)
        .setObservedTimeUnixNano(1_700_000_000_000_000_001L + seed)
        .setSeverityNumber(SeverityNumber.forNumber(1 + seed % 24))
        .setSeverityText("INFO")
        .setBody(body)
        .addAllAttributes(richAttributes(seed))
        .setDroppedAttributesCount(seed % 2)
        .setFlags(1)
        .setTraceId(id(16, seed))
        .setSpanId(id(8, seed))
        .setEventName(seed % 2 == 0 ? "session.start" : "")
        .build();
  }

  static ExportLogsServiceRequest logs(int[] scopes, int recordsPerScope) {
    ExportLogsServiceRequest.Builder request = ExportLogsServiceRequest.newBuilder();
    int seed = 0;
    for (int r = 0; r < scopes.length; r++) {
      ResourceLogs.Builder block = ResourceLogs.newBuilder().setResource(resource(r));
      for (int s = 0; s < scopes[r]; s++) {
        ScopeLogs.Builder scope = ScopeLogs.newBuilder().setScope(scope(s));
        for (int i = 0; i < recordsPerScope; i++) {
          scope.addLogRecords(logRecord(seed++));
        }
        block.addScopeLogs(scope);
      }
      request.addResourceLogs(block);
    }
    return request.build();
  }

  /** Unknown fields of every wire type, a group with a nested group included. */
  static UnknownFieldSet unknownFields(int seed) {
    UnknownFieldSet group =
        UnknownFieldSet.newBuilder()
            .addField(1, UnknownFieldSet.Field.newBuilder().addVarint(seed).build())
            .addField(
                2,
                UnknownFieldSet.Field.newBuilder()
                    .addLengthDelimited(ByteString.copyFromUtf8("in a group"))
                    .build())
            .addField(
                3,
                UnknownFieldSet.Field.newBuilder()
                    .addGroup(
                        UnknownFieldSet.newBuilder()
                            .addField(4, UnknownFieldSet.Field.newBuilder().addFixed32(9).build())
                            .build())
                    .build())
            .build();
    UnknownFieldSet.Field.Builder lengthDelimited =
        UnknownFieldSet.Field.newBuilder()
            // Not UTF-8.
            .addLengthDelimited(ByteString.copyFrom(new byte[] {(byte) 0xFF, 0, 1}));
    if (seed % 4 == 0) {
      // Longer than 127 bytes: a two-byte length prefix.
      lengthDelimited.addLengthDelimited(ByteString.copyFrom(new byte[130]));
    }
    return UnknownFieldSet.newBuilder()
        .addField(
            1000 + seed, UnknownFieldSet.Field.newBuilder().addVarint(-1L).addVarint(seed).build())
        .addField(1001 + seed, UnknownFieldSet.Field.newBuilder().addFixed32(0xABCD).build())
        .addField(1002 + seed, UnknownFieldSet.Field.newBuilder().addFixed64(-7L).build())
        .addField(1003 + seed, lengthDelimited.build())
        .addField(1004 + seed, UnknownFieldSet.Field.newBuilder().addGroup(group).build())
        .build();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
