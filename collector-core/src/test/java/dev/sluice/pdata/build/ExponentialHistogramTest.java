package dev.sluice.pdata.build;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.internal.OtlpEnums.AggregationTemporality;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The exponential histogram: bucket indexes, downscaling, recording. */
class ExponentialHistogramTest {
  @ParameterizedTest
  @CsvSource({
    // value, scale, index: the bucket (base^index, base^(index+1)] with base 2^(2^-scale)
    "1, 0, -1",
    "2, 0, 0",
    "3, 0, 1",
    "4, 0, 1",
    "3, 1, 3",
    "1, 20, -1",
    "2, 20, 1048575",
    "1.5, 20, 613377",
    "1000, -2, 2",
    "0.001, 3, -80",
  })
  void mapsAValueToTheBucketWhoseUpperBoundIncludesIt(double value, int scale, int index) {
    assertThat(ExponentialHistogram.index(value, scale)).isEqualTo(index);
  }

  @Test
  void everyValueIsInTheBucketItIsCountedIn() {
    SplittableRandom random = new SplittableRandom(42);
    for (int scale = -4; scale <= 20; scale++) {
      for (int i = 0; i < 2000; i++) {
        double value = Math.exp(random.nextDouble(-20, 20));
        int index = ExponentialHistogram.index(value, scale);
        double lower = Math.pow(2, Math.scalb((double) index, -scale));
        double upper = Math.pow(2, Math.scalb((double) index + 1, -scale));
        assertThat(value).as("%s at scale %s", value, scale).isGreaterThan(lower * (1 - 1e-12));
        assertThat(value)
            .as("%s at scale %s", value, scale)
            .isLessThanOrEqualTo(upper * (1 + 1e-12));
      }
    }
  }

  @Test
  void downscalesToKeepAtMostMaxSizeBucketsAndLosesNoCount() {
    ExponentialHistogram h = new ExponentialHistogram(4);
    double[] values = {1, 2, 4, 8, 16, 32, 3, 0};
    for (double v : values) {
      h.record(v, 1);
    }

    assertThat(h.count()).isEqualTo(8);
    assertThat(h.zeroCount()).isEqualTo(1);
    assertThat(h.sum()).isEqualTo(66.0);
    assertThat(h.min()).isZero();
    assertThat(h.max()).isEqualTo(32.0);
    long[] counts = h.bucketCounts();
    assertThat(counts.length).isLessThanOrEqualTo(4);
    assertThat(java.util.Arrays.stream(counts).sum()).isEqualTo(7);
    // Values 1 .. 32 span six powers of two: four buckets hold them at scale -1 (base 4).
    assertThat(h.scale()).isEqualTo(-1);
    for (double v : values) {
      if (v > 0) {
        int index = ExponentialHistogram.index(v, h.scale());
        assertThat(index).isBetween(h.offset(), h.offset() + counts.length - 1);
      }
    }
    assertThat(counts).containsExactly(1, 3, 2, 1); // (1/4,1], (1,4], (4,16], (16,64]
  }

  @Test
  void onlyZerosReportScaleZero() {
    ExponentialHistogram h = new ExponentialHistogram(160);
    h.record(0, 3);

    assertThat(h.scale()).isZero();
    assertThat(h.zeroCount()).isEqualTo(3);
    assertThat(h.bucketCounts()).isEmpty();
  }

  @Test
  void recordsManyTimesAtOnce() {
    ExponentialHistogram h = new ExponentialHistogram(160);
    h.record(5, 4);

    assertThat(h.count()).isEqualTo(4);
    assertThat(h.sum()).isEqualTo(20.0);
    assertThat(h.bucketCounts()).containsExactly(4);
  }

  @Test
  void writesItselfAsAnExponentialHistogramPoint() throws Exception {
    ExponentialHistogram h = new ExponentialHistogram(8);
    h.record(0, 1);
    h.record(3, 2);
    h.record(250, 1);
    MetricsBuilder builder = new MetricsBuilder();
    builder.resource();
    builder.scope();
    h.writeTo(builder.metric().name("d").exponentialHistogram(AggregationTemporality.DELTA))
        .timeUnixNano(7);

    ExponentialHistogramDataPoint point =
        ExportMetricsServiceRequest.parseFrom(builder.toByteArray())
            .getResourceMetrics(0)
            .getScopeMetrics(0)
            .getMetrics(0)
            .getExponentialHistogram()
            .getDataPoints(0);
    assertThat(point.getCount()).isEqualTo(4);
    assertThat(point.getZeroCount()).isEqualTo(1);
    assertThat(point.getSum()).isEqualTo(256.0);
    assertThat(point.getMin()).isZero();
    assertThat(point.getMax()).isEqualTo(250.0);
    assertThat(point.getScale()).isEqualTo(h.scale());
    assertThat(point.getPositive().getOffset()).isEqualTo(h.offset());
    assertThat(point.getPositive().getBucketCountsList())
        .containsExactlyElementsOf(Arrays.stream(h.bucketCounts()).boxed().toList());
    assertThat(point.getTimeUnixNano()).isEqualTo(7);
  }

  @Test
  void anEmptyHistogramWritesNoMinOrMax() throws Exception {
    MetricsBuilder builder = new MetricsBuilder();
    builder.resource();
    builder.scope();
    new ExponentialHistogram(8)
        .writeTo(builder.metric().name("d").exponentialHistogram(AggregationTemporality.DELTA));

    ExponentialHistogramDataPoint point =
        ExportMetricsServiceRequest.parseFrom(builder.toByteArray())
            .getResourceMetrics(0)
            .getScopeMetrics(0)
            .getMetrics(0)
            .getExponentialHistogram()
            .getDataPoints(0);
    assertThat(point.getCount()).isZero();
    assertThat(point.hasMin()).isFalse();
    assertThat(point.hasMax()).isFalse();
  }
}
