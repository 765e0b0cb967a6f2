package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Metric-level visits ({@link Batch#visitMetrics}): every metric is shown, those without data
 * points too, and can be dropped or get a new header; checked against protobuf-java.
 */
class MetricEditTest {
  private final OtlpIndexer indexer = new OtlpIndexer();

  private static Metric gauge(String name, int points) {
    Gauge.Builder gauge = Gauge.newBuilder();
    for (int i = 0; i < points; i++) {
      gauge.addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(i + 1).setAsInt(i));
    }
    return Metric.newBuilder().setName(name).setUnit("1").setGauge(gauge).build();
  }

  private static Metric sum(String name, int points) {
    Sum.Builder sum =
        Sum.newBuilder()
            .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
            .setIsMonotonic(true);
    for (int i = 0; i < points; i++) {
      sum.addDataPoints(NumberDataPoint.newBuilder().setTimeUnixNano(i + 1).setAsDouble(i));
    }
    return Metric.newBuilder().setName(name).setDescription("d").setSum(sum).build();
  }

  /** m0 (2 points), empty (0), m2 (6), s3 (3 points, a sum), last-empty (0). */
  private static ExportMetricsServiceRequest request() {
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .setResource(BatchEditTest.resource("svc"))
                .addScopeMetrics(
                    ScopeMetrics.newBuilder()
                        .addMetrics(gauge("m0", 2))
                        .addMetrics(gauge("empty", 0))
                        .addMetrics(gauge("m2", 6))
                        .addMetrics(sum("s3", 3))
                        .addMetrics(gauge("last-empty", 0))))
        .build();
  }

  private Batch batch() throws Exception {
    return Batch.of(indexer.index(Signal.METRICS, request().toByteArray()));
  }

  /** The request's batch in three slices that cut m2 (after its 1st and 4th points). */
  private Batch cutInsideM2() throws Exception {
    Batch source = batch();
    Batch cut = new Batch(Signal.METRICS);
    source.moveTo(cut, 3);
    source.moveTo(cut, 3);
    cut.addAll(source);
    return cut;
  }

  private static ExportMetricsServiceRequest marshal(Batch batch) throws Exception {
    return ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch));
  }

  private static ExportMetricsServiceRequest withMetrics(List<Metric> metrics) {
    ExportMetricsServiceRequest.Builder out = request().toBuilder();
    out.getResourceMetricsBuilder(0)
        .getScopeMetricsBuilder(0)
        .clearMetrics()
        .addAllMetrics(metrics);
    return out.build();
  }

  @Test
  void showsEveryMetricMetricsWithoutDataPointsIncluded() throws Exception {
    Batch batch = batch();
    List<String> seen = new ArrayList<>();

    batch.visitMetrics(
        item -> {
          assertThat(item.isMetric()).isTrue();
          assertThat(item.point()).isEqualTo(-1);
          seen.add(item.metric().name() + "/" + item.metric().dataPointCount());
        });

    assertThat(seen).containsExactly("m0/2", "empty/0", "m2/6", "s3/3", "last-empty/0");
    assertThat(marshal(batch)).isEqualTo(request());
    batch.clear();
  }

  @Test
  void dropsMetricsByNameWithTheirPointsAndEmptyOnes() throws Exception {
    Batch batch = batch();

    long dropped =
        batch.visitMetrics(
            item -> {
              if (item.metric().nameEquals("m2") || item.metric().dataPointCount() == 0) {
                item.drop();
              }
            });

    assertThat(dropped).isEqualTo(6);
    assertThat(batch.unitCount()).isEqualTo(5);
    assertThat(marshal(batch)).isEqualTo(withMetrics(List.of(gauge("m0", 2), sum("s3", 3))));
    batch.clear();
  }

  @Test
  void droppingEveryMetricEmptiesTheBatch() throws Exception {
    Batch batch = batch();

    batch.visitMetrics(BatchItem::drop);

    assertThat(batch.isEmpty()).isTrue();
    assertThat(OtlpMarshaler.toByteArray(batch)).isEmpty();
  }

  @Test
  void dropsMetricPartsAcrossSliceBoundaries() throws Exception {
    Batch cut = cutInsideM2();
    List<String> seen = new ArrayList<>();

    cut.visitMetrics(
        item -> {
          seen.add(item.metric().name() + "/" + item.metric().dataPointCount());
          if (item.metric().nameEquals("m2") && item.metric().dataPointCount() == 3) {
            item.drop();
          }
        });

    assertThat(seen)
        .containsExactly("m0/2", "empty/0", "m2/1", "m2/3", "m2/2", "s3/3", "last-empty/0");
    Metric m2 = gauge("m2", 6);
    Metric keptOfM2 =
        m2.toBuilder()
            .setGauge(
                Gauge.newBuilder()
                    .addDataPoints(m2.getGauge().getDataPoints(0))
                    .addDataPoints(m2.getGauge().getDataPoints(4))
                    .addDataPoints(m2.getGauge().getDataPoints(5)))
            .build();
    assertThat(marshal(cut))
        .isEqualTo(
            withMetrics(
                List.of(
                    gauge("m0", 2),
                    gauge("empty", 0),
                    keptOfM2,
                    sum("s3", 3),
                    gauge("last-empty", 0))));
    cut.clear();
  }

  @Test
  void replacesAMetricsHeaderAndKeepsItsPoints() throws Exception {
    Batch batch = batch();
    byte[] renamed =
        sum("renamed", 0).toBuilder()
            .setUnit("ms")
            .setSum(
                Sum.newBuilder()
                    .setAggregationTemporality(
                        AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                    .addDataPoints(NumberDataPoint.newBuilder().setAsInt(99)))
            .build()
            .toByteArray();
    List<String> after = new ArrayList<>();

    batch.visitMetrics(
        item -> {
          if (item.metric().nameEquals("s3")) {
            item.replaceMetric(renamed, 0, renamed.length);
            after.add(
                item.metric().name()
                    + " "
                    + item.metric().unit()
                    + " "
                    + item.metric().aggregationTemporality()
                    + " "
                    + item.metric().dataPointCount());
          }
        });

    assertThat(after).containsExactly("renamed ms 2 3");
    Metric s3 = sum("s3", 3);
    Metric expected =
        s3.toBuilder()
            .setName("renamed")
            .setUnit("ms")
            .setSum(
                s3.getSum().toBuilder()
                    .setAggregationTemporality(
                        AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE)
                    .setIsMonotonic(false))
            .build();
    ExportMetricsServiceRequest out = marshal(batch);
    assertThat(out.getResourceMetrics(0).getScopeMetrics(0).getMetrics(3)).isEqualTo(expected);
    assertThat(out)
        .isEqualTo(
            withMetrics(
                List.of(
                    gauge("m0", 2),
                    gauge("empty", 0),
                    gauge("m2", 6),
                    expected,
                    gauge("last-empty", 0))));
    List<String> later = new ArrayList<>();
    new BatchView()
        .forEachMetric(
            batch,
            (resource, scope, metric) ->
                later.add(metric.name() + ":" + metric.aggregationTemporality()));
    assertThat(later).containsExactly("m0:0", "empty:0", "m2:0", "renamed:2", "last-empty:0");
    batch.clear();
  }

  @Test
  void aReplacedHeaderReachesEveryPartOfACutMetricAndPointEditsStillApply() throws Exception {
    Batch cut = cutInsideM2();
    byte[] renamed = gauge("m2-renamed", 0).toByteArray();
    byte[] point = NumberDataPoint.newBuilder().setAsInt(7).build().toByteArray();

    List<String> names = new ArrayList<>();
    cut.visit(
        item -> {
          names.add(item.metric().name().toString());
          if (item.item() == 2) {
            // Once per metric is enough; again from each point is harmless.
            item.replaceMetric(renamed, 0, renamed.length);
            if (item.point() == 2) {
              item.replace(point, 0, point.length);
            }
          }
        });

    // The metric view reads the header replaced at the metric's first point from then on.
    assertThat(names)
        .containsExactly(
            "m0",
            "m0",
            "m2",
            "m2-renamed",
            "m2-renamed",
            "m2-renamed",
            "m2-renamed",
            "m2-renamed",
            "s3",
            "s3",
            "s3");
    Metric m2 = gauge("m2", 6);
    Gauge.Builder points = m2.getGauge().toBuilder();
    points.setDataPoints(2, NumberDataPoint.newBuilder().setAsInt(7));
    Metric expected = m2.toBuilder().setName("m2-renamed").setGauge(points).build();
    assertThat(marshal(cut).getResourceMetrics(0).getScopeMetrics(0).getMetrics(2))
        .isEqualTo(expected);
    assertThat(cut.marshaledSizeEstimate())
        .isGreaterThanOrEqualTo(OtlpMarshaler.toByteArray(cut).length);
    cut.clear();
  }

  @Test
  void aHeaderReplacedFromALaterPartOfACutMetricIsTheOneWritten() throws Exception {
    Batch cut = cutInsideM2();
    assertThat(cut.sliceCount()).isGreaterThan(1);
    byte[] renamed = gauge("m2-renamed", 0).toByteArray();

    // Only the metric's last point (in the last part) decides, as a data-point condition would.
    cut.visit(
        item -> {
          if (item.item() == 2 && item.point() == 5) {
            item.replaceMetric(renamed, 0, renamed.length);
          }
        });

    Metric expected = gauge("m2", 6).toBuilder().setName("m2-renamed").build();
    assertThat(marshal(cut).getResourceMetrics(0).getScopeMetrics(0).getMetrics(2))
        .isEqualTo(expected);
    assertThat(cut.marshaledSizeEstimate())
        .isGreaterThanOrEqualTo(OtlpMarshaler.toByteArray(cut).length);
    cut.clear();
  }

  @Test
  void refusesAHeaderOfAnotherType() throws Exception {
    Batch batch = batch();
    byte[] sum = sum("x", 0).toByteArray();

    assertThatThrownBy(
            () ->
                batch.visitMetrics(
                    item -> {
                      if (item.metric().nameEquals("m0")) {
                        item.replaceMetric(sum, 0, sum.length);
                      }
                    }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("data field 5 replaced with data field 7");
    assertThat(marshal(batch)).isEqualTo(request());
    batch.clear();
  }

  @Test
  void aMetricLevelItemIsNotReplacedAsAUnit() throws Exception {
    Batch batch = batch();

    assertThatThrownBy(() -> batch.visitMetrics(item -> item.replace(new byte[0], 0, 0)))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> batch.visitMetrics(BatchItem::dataPoint))
        .isInstanceOf(IllegalStateException.class);
    batch.clear();
  }
}
