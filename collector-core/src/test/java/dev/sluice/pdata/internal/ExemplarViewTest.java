package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.build.MetricsBuilder;
import dev.sluice.pdata.build.MetricsBuilder.MetricWriter;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.internal.OtlpEnums.AggregationTemporality;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.DataPointView;
import dev.sluice.pdata.view.ExemplarView;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
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
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * A data point's exemplars read through {@link ExemplarView} as protobuf-java parses the same
 * bytes: of every kind of point that has them, built with the builders or with protobuf-java, with
 * and without values and IDs, with both values on the wire, and after an edit replaced the point.
 */
class ExemplarViewTest {
  private static final String TRACE_HEX = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String SPAN_HEX = "00f067aa0ba902b7";
  private static final byte[] TRACE_ID = HexFormat.of().parseHex(TRACE_HEX);
  private static final byte[] SPAN_ID = HexFormat.of().parseHex(SPAN_HEX);
  private static final long TIME = 1_767_225_600_000_000_000L;

  private final OtlpIndexer indexer = new OtlpIndexer();

  /** Every field of one exemplar as the view reads it (or as protobuf-java's parse says it is). */
  record Seen(
      long timeUnixNano,
      boolean isDouble,
      double doubleValue,
      boolean isInt,
      long intValue,
      boolean hasTraceId,
      long traceIdHigh,
      long traceIdLow,
      String traceIdHex,
      boolean hasSpanId,
      long spanIdLong,
      String spanIdHex,
      String filteredAttributes) {}

  private static Seen seen(ExemplarView e) {
    StringBuilder trace = new StringBuilder();
    e.traceIdHex(trace);
    StringBuilder span = new StringBuilder();
    e.spanIdHex(span);
    return new Seen(
        e.timeUnixNano(),
        e.isDouble(),
        e.doubleValue(),
        e.isInt(),
        e.intValue(),
        e.hasTraceId(),
        e.traceIdHigh(),
        e.traceIdLow(),
        trace.toString(),
        e.hasSpanId(),
        e.spanIdLong(),
        span.toString(),
        ViewText.attributes(e.filteredAttributes(new AttributeCursor())));
  }

  private static Seen expected(Exemplar e) {
    String trace = ProtoText.id(e.getTraceId(), 16);
    String span = ProtoText.id(e.getSpanId(), 8);
    ByteBuffer traceBytes = ByteBuffer.wrap(trace.isEmpty() ? new byte[16] : bytes(e.getTraceId()));
    ByteBuffer spanBytes = ByteBuffer.wrap(span.isEmpty() ? new byte[8] : bytes(e.getSpanId()));
    boolean isDouble = e.getValueCase() == Exemplar.ValueCase.AS_DOUBLE;
    boolean isInt = e.getValueCase() == Exemplar.ValueCase.AS_INT;
    return new Seen(
        e.getTimeUnixNano(),
        isDouble,
        isDouble ? e.getAsDouble() : 0,
        isInt,
        isInt ? e.getAsInt() : 0,
        !trace.isEmpty(),
        traceBytes.getLong(0),
        traceBytes.getLong(8),
        trace,
        !span.isEmpty(),
        spanBytes.getLong(0),
        span,
        ProtoText.attributes(e.getFilteredAttributesList()));
  }

  private static byte[] bytes(ByteString bytes) {
    return bytes.toByteArray();
  }

  /** Each data point's exemplars, in order, as the views read them; checks the count on the way. */
  private static List<List<Seen>> read(Batch batch) {
    List<List<Seen>> points = new ArrayList<>();
    ExemplarView exemplars = new ExemplarView();
    new BatchView()
        .forEachDataPoint(
            batch,
            (resource, scope, metric, point) -> {
              List<Seen> seen = new ArrayList<>();
              point.exemplars(exemplars);
              while (exemplars.next()) {
                seen.add(seen(exemplars));
              }
              assertThat(point.exemplarCount()).isEqualTo(seen.size());
              assertThat(exemplars.count()).isEqualTo(seen.size());
              points.add(seen);
            });
    return points;
  }

  /** Each data point's exemplars, in order, as protobuf-java parses the request. */
  private static List<List<Seen>> expected(ExportMetricsServiceRequest request) {
    List<List<Seen>> points = new ArrayList<>();
    for (ResourceMetrics r : request.getResourceMetricsList()) {
      for (ScopeMetrics s : r.getScopeMetricsList()) {
        for (Metric m : s.getMetricsList()) {
          switch (m.getDataCase()) {
            case GAUGE ->
                m.getGauge()
                    .getDataPointsList()
                    .forEach(p -> points.add(expected(p.getExemplarsList())));
            case SUM ->
                m.getSum()
                    .getDataPointsList()
                    .forEach(p -> points.add(expected(p.getExemplarsList())));
            case HISTOGRAM ->
                m.getHistogram()
                    .getDataPointsList()
                    .forEach(p -> points.add(expected(p.getExemplarsList())));
            case EXPONENTIAL_HISTOGRAM ->
                m.getExponentialHistogram()
                    .getDataPointsList()
                    .forEach(p -> points.add(expected(p.getExemplarsList())));
            case SUMMARY -> m.getSummary().getDataPointsList().forEach(p -> points.add(List.of()));
            default -> {}
          }
        }
      }
    }
    return points;
  }

  private static List<Seen> expected(List<Exemplar> exemplars) {
    return exemplars.stream().map(ExemplarViewTest::expected).toList();
  }

  private Batch index(ExportMetricsServiceRequest request) throws Exception {
    return Batch.of(indexer.index(Signal.METRICS, request.toByteArray()));
  }

  @Test
  void builtExemplarsOfEveryPointKindReadBackFieldByField() throws Exception {
    MetricsBuilder metrics = new MetricsBuilder();
    metrics.resource().attributes().put("service.name", "checkout");
    metrics.scope().name("dev.sluice.test");
    MetricWriter load = metrics.metric().name("load").gauge();
    var loadPoint = load.numberPoint().timeUnixNano(TIME).doubleValue(0.75);
    loadPoint
        .exemplar()
        .timeUnixNano(TIME - 5)
        .doubleValue(0.5)
        .traceId(TRACE_ID)
        .spanId(SPAN_ID)
        .filteredAttributes()
        .put("user.id", "u1")
        .put("retry", 2L);
    loadPoint.exemplar().timeUnixNano(TIME - 4).intValue(3);
    metrics
        .metric()
        .name("calls")
        .sum(AggregationTemporality.CUMULATIVE, true)
        .numberPoint()
        .intValue(42)
        .exemplar()
        .intValue(-7)
        .traceId(TRACE_ID);
    var histogramPoint =
        metrics
            .metric()
            .name("duration")
            .histogram(AggregationTemporality.DELTA)
            .histogramPoint()
            .count(2)
            .buckets(new double[] {10}, new long[] {1, 1});
    histogramPoint.exemplar().doubleValue(250).spanId(SPAN_ID);
    histogramPoint.exemplar().timeUnixNano(TIME);
    metrics
        .metric()
        .name("size")
        .exponentialHistogram(AggregationTemporality.DELTA)
        .exponentialHistogramPoint()
        .count(1)
        .positive(0, new long[] {1})
        .exemplar()
        .doubleValue(3.5)
        .traceId(TRACE_ID)
        .spanId(SPAN_ID);
    metrics.metric().name("latency").summary().summaryPoint().count(1).sum(2).quantile(0.5, 2);
    metrics.metric().name("bare").gauge().numberPoint().doubleValue(1);

    Batch batch = Batch.of(metrics.build());
    List<List<Seen>> seen = read(batch);

    long traceHigh = ByteBuffer.wrap(TRACE_ID).getLong(0);
    long traceLow = ByteBuffer.wrap(TRACE_ID).getLong(8);
    long span = ByteBuffer.wrap(SPAN_ID).getLong(0);
    String noAttributes = "{#0}";
    assertThat(seen)
        .containsExactly(
            List.of(
                new Seen(
                    TIME - 5,
                    true,
                    0.5,
                    false,
                    0,
                    true,
                    traceHigh,
                    traceLow,
                    TRACE_HEX,
                    true,
                    span,
                    SPAN_HEX,
                    "{user.id(0)=s:u1, retry(0)=i:2, #2}"),
                new Seen(TIME - 4, false, 0, true, 3, false, 0, 0, "", false, 0, "", noAttributes)),
            List.of(
                new Seen(
                    0,
                    false,
                    0,
                    true,
                    -7,
                    true,
                    traceHigh,
                    traceLow,
                    TRACE_HEX,
                    false,
                    0,
                    "",
                    noAttributes)),
            List.of(
                new Seen(
                    0, true, 250, false, 0, false, 0, 0, "", true, span, SPAN_HEX, noAttributes),
                new Seen(TIME, false, 0, false, 0, false, 0, 0, "", false, 0, "", noAttributes)),
            List.of(
                new Seen(
                    0,
                    true,
                    3.5,
                    false,
                    0,
                    true,
                    traceHigh,
                    traceLow,
                    TRACE_HEX,
                    true,
                    span,
                    SPAN_HEX,
                    noAttributes)),
            List.of(),
            List.of());
    assertThat(seen)
        .isEqualTo(
            expected(ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch))));
    batch.clear();
  }

  @Test
  void protobufJavaExemplarsOfEveryPointKindReadAsItParsesThem() throws Exception {
    Exemplar full =
        Exemplar.newBuilder()
            .setTimeUnixNano(TIME)
            .setAsDouble(-0.0)
            .setTraceId(ByteString.copyFrom(TRACE_ID))
            .setSpanId(ByteString.copyFrom(SPAN_ID))
            .addFilteredAttributes(kv("http.route", AnyValue.newBuilder().setStringValue("/u")))
            .addFilteredAttributes(
                kv(
                    "tags",
                    AnyValue.newBuilder()
                        .setArrayValue(
                            ArrayValue.newBuilder()
                                .addValues(AnyValue.newBuilder().setBoolValue(true))
                                .addValues(AnyValue.newBuilder().setDoubleValue(1.5)))))
            .build();
    Exemplar intOnly = Exemplar.newBuilder().setAsInt(Long.MIN_VALUE).build();
    Exemplar empty = Exemplar.getDefaultInstance();
    Exemplar zeroIds =
        Exemplar.newBuilder()
            .setAsInt(1)
            .setTraceId(ByteString.copyFrom(new byte[16]))
            .setSpanId(ByteString.copyFrom(new byte[8]))
            .build();
    Exemplar maxIds =
        Exemplar.newBuilder()
            .setAsDouble(Double.NaN)
            .setTraceId(ByteString.copyFrom(filled(16, (byte) 0xff)))
            .setSpanId(ByteString.copyFrom(filled(8, (byte) 0x80)))
            .build();
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .addScopeMetrics(
                        ScopeMetrics.newBuilder()
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName("gauge")
                                    .setGauge(
                                        Gauge.newBuilder()
                                            .addDataPoints(
                                                NumberDataPoint.newBuilder()
                                                    .setAsDouble(1)
                                                    .addExemplars(full)
                                                    .addExemplars(empty))
                                            .addDataPoints(NumberDataPoint.newBuilder())))
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName("sum")
                                    .setSum(
                                        Sum.newBuilder()
                                            .addDataPoints(
                                                NumberDataPoint.newBuilder()
                                                    .setAsInt(1)
                                                    .addExemplars(intOnly)
                                                    .addExemplars(zeroIds))))
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName("histogram")
                                    .setHistogram(
                                        Histogram.newBuilder()
                                            .addDataPoints(
                                                HistogramDataPoint.newBuilder()
                                                    .setCount(3)
                                                    .addExemplars(maxIds)
                                                    .addExemplars(full)
                                                    .addExemplars(intOnly))))
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName("exponential")
                                    .setExponentialHistogram(
                                        ExponentialHistogram.newBuilder()
                                            .addDataPoints(
                                                ExponentialHistogramDataPoint.newBuilder()
                                                    .setCount(2)
                                                    .addExemplars(zeroIds)
                                                    .addExemplars(full))
                                            .addDataPoints(
                                                ExponentialHistogramDataPoint.newBuilder())))
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName("summary")
                                    .setSummary(
                                        Summary.newBuilder()
                                            .addDataPoints(
                                                SummaryDataPoint.newBuilder().setCount(1))))))
            .build();

    Batch batch = index(request);
    List<List<Seen>> seen = read(batch);

    assertThat(seen).hasSize(7).isEqualTo(expected(request));
    assertThat(seen.stream().mapToInt(List::size).sum()).isEqualTo(9);
    batch.clear();
  }

  @Test
  void theLastValueOnTheWireWins() throws Exception {
    // Unknown fields are written after the known ones: the second value comes last on the wire.
    Exemplar doubleThenInt =
        Exemplar.newBuilder()
            .setAsDouble(1.5)
            .setUnknownFields(
                UnknownFieldSet.newBuilder()
                    .addField(6, UnknownFieldSet.Field.newBuilder().addFixed64(7).build())
                    .build())
            .build();
    Exemplar intThenDouble =
        Exemplar.newBuilder()
            .setAsInt(7)
            .setUnknownFields(
                UnknownFieldSet.newBuilder()
                    .addField(
                        3,
                        UnknownFieldSet.Field.newBuilder()
                            .addFixed64(Double.doubleToLongBits(2.5))
                            .build())
                    .build())
            .build();
    ExportMetricsServiceRequest request =
        gauge(
            NumberDataPoint.newBuilder()
                .setAsInt(1)
                .addExemplars(doubleThenInt)
                .addExemplars(intThenDouble)
                .build());

    Batch batch = index(request);
    List<List<Seen>> seen = read(batch);

    assertThat(seen.get(0))
        .extracting(Seen::isDouble, Seen::doubleValue, Seen::isInt, Seen::intValue)
        .containsExactly(Tuple.tuple(false, 0.0, true, 7L), Tuple.tuple(true, 2.5, false, 0L));
    assertThat(seen)
        .as("as protobuf-java parses the same bytes")
        .isEqualTo(expected(ExportMetricsServiceRequest.parseFrom(request.toByteArray())));
    batch.clear();
  }

  @Test
  void anExemplarWithoutValueOrIdsReadsAsEmpty() throws Exception {
    Batch batch =
        index(
            gauge(
                NumberDataPoint.newBuilder()
                    .setAsDouble(1)
                    .addExemplars(Exemplar.newBuilder().setTimeUnixNano(TIME))
                    .addExemplars(
                        Exemplar.newBuilder()
                            .setTraceId(ByteString.copyFrom(new byte[16]))
                            .setSpanId(ByteString.copyFrom(new byte[8])))
                    .build()));
    List<Seen> seen = read(batch).get(0);

    Seen none = new Seen(TIME, false, 0, false, 0, false, 0, 0, "", false, 0, "", "{#0}");
    Seen zeroIds = new Seen(0, false, 0, false, 0, false, 0, 0, "", false, 0, "", "{#0}");
    assertThat(seen).containsExactly(none, zeroIds);
    batch.clear();
  }

  @Test
  void pointsWithoutExemplarsAndSummaryPointsShowNone() throws Exception {
    // A summary point has no exemplars field; a length-delimited field of a number point's or a
    // histogram's exemplars number in it is not read as exemplars.
    SummaryDataPoint summary =
        SummaryDataPoint.newBuilder()
            .setCount(1)
            .setUnknownFields(
                UnknownFieldSet.newBuilder()
                    .addField(
                        11,
                        UnknownFieldSet.Field.newBuilder()
                            .addLengthDelimited(
                                Exemplar.newBuilder().setAsInt(1).build().toByteString())
                            .build())
                    .build())
            .build();
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .addScopeMetrics(
                        ScopeMetrics.newBuilder()
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName("gauge")
                                    .setGauge(
                                        Gauge.newBuilder()
                                            .addDataPoints(
                                                NumberDataPoint.newBuilder()
                                                    .setAsInt(1)
                                                    .addExemplars(
                                                        Exemplar.newBuilder().setAsInt(5)))
                                            .addDataPoints(
                                                NumberDataPoint.newBuilder().setAsInt(2))))
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName("summary")
                                    .setSummary(Summary.newBuilder().addDataPoints(summary)))))
            .build();
    Batch batch = index(request);
    ExemplarView exemplars = new ExemplarView();
    List<String> seen = new ArrayList<>();

    new BatchView()
        .forEachDataPoint(
            batch,
            (resource, scope, metric, point) -> {
              point.exemplars(exemplars);
              int walked = 0;
              while (exemplars.next()) {
                walked++;
              }
              seen.add(metric.name() + " " + point.exemplarCount() + "/" + walked);
              assertThat(exemplars.next()).as("the walk stays ended").isFalse();
            });

    assertThat(seen).containsExactly("gauge 1/1", "gauge 0/0", "summary 0/0");
    batch.clear();
  }

  @Test
  void editedPointsShowTheExemplarsOfTheirNewBytes() throws Exception {
    Exemplar original =
        Exemplar.newBuilder().setAsInt(1).setSpanId(ByteString.copyFrom(SPAN_ID)).build();
    Exemplar replacementExemplar =
        Exemplar.newBuilder()
            .setAsDouble(9.5)
            .setTraceId(ByteString.copyFrom(TRACE_ID))
            .setTimeUnixNano(TIME)
            .build();
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .addScopeMetrics(
                        ScopeMetrics.newBuilder()
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName("gauge")
                                    .setGauge(
                                        Gauge.newBuilder()
                                            .addDataPoints(
                                                NumberDataPoint.newBuilder()
                                                    .setAsInt(1)
                                                    .addExemplars(original))
                                            .addDataPoints(
                                                NumberDataPoint.newBuilder()
                                                    .setAsInt(2)
                                                    .addExemplars(original)
                                                    .addExemplars(original))))))
            .build();
    Batch batch = index(request);
    byte[] replacement =
        NumberDataPoint.newBuilder()
            .setAsInt(42)
            .addExemplars(replacementExemplar)
            .build()
            .toByteArray();
    ExemplarView exemplars = new ExemplarView();
    List<Seen> seenInTheVisit = new ArrayList<>();

    batch.visit(
        item -> {
          if (item.point() == 0) {
            item.replace(replacement, 0, replacement.length);
            DataPointView point = item.dataPoint();
            point.exemplars(exemplars);
            while (exemplars.next()) {
              seenInTheVisit.add(seen(exemplars));
            }
          } else {
            item.editDataPoint().putAttribute("env", "prod").setIntValue(3);
          }
        });

    assertThat(seenInTheVisit).containsExactly(expected(replacementExemplar));
    List<List<Seen>> seen = read(batch);
    assertThat(seen)
        .containsExactly(
            List.of(expected(replacementExemplar)),
            List.of(expected(original), expected(original)));
    assertThat(seen)
        .isEqualTo(
            expected(ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch))));
    List<String> attributes = new ArrayList<>();
    new BatchView()
        .forEachDataPoint(
            batch,
            (resource, scope, metric, point) ->
                attributes.add(ViewText.attributes(point.attributes(new AttributeCursor()))));
    assertThat(attributes)
        .as("the second point is read from its edit")
        .contains("{env(0)=s:prod, #1}");
    batch.clear();
  }

  private static ExportMetricsServiceRequest gauge(NumberDataPoint point) {
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .addScopeMetrics(
                    ScopeMetrics.newBuilder()
                        .addMetrics(
                            Metric.newBuilder()
                                .setName("gauge")
                                .setGauge(Gauge.newBuilder().addDataPoints(point)))))
        .build();
  }

  private static KeyValue kv(String key, AnyValue.Builder value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }

  private static byte[] filled(int length, byte value) {
    byte[] bytes = new byte[length];
    java.util.Arrays.fill(bytes, value);
    return bytes;
  }
}
