package dev.sluice.connector.spanmetrics;

import static dev.sluice.connector.spanmetrics.Harness.metric;
import static dev.sluice.connector.spanmetrics.Harness.request;
import static dev.sluice.connector.spanmetrics.Harness.service;
import static dev.sluice.connector.spanmetrics.Harness.span;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.pdata.build.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The duration metric as an exponential histogram: its data points, in ms and in s. */
class ExponentialDurationTest {
  private static final long MS = 1_000_000L;

  @Test
  void theConnectorWritesExponentialDataPointsInMilliseconds() {
    Harness h = new Harness("histogram: {exponential: {max_size: 10}}");
    h.send(request(service("svc"), span("op", 0), span("op", 3 * MS), span("op", 250 * MS)));

    Metric duration = metric(h.flush(), "traces.span.metrics.duration");
    assertThat(duration.getUnit()).isEqualTo("ms");
    assertThat(duration.getExponentialHistogram().getAggregationTemporality())
        .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
    ExponentialHistogramDataPoint point = duration.getExponentialHistogram().getDataPoints(0);
    assertThat(point.getCount()).isEqualTo(3);
    assertThat(point.getZeroCount()).isEqualTo(1);
    assertThat(point.getSum()).isEqualTo(253.0);
    assertThat(point.getMin()).isZero();
    assertThat(point.getMax()).isEqualTo(250.0);
    List<Long> counts = point.getPositive().getBucketCountsList();
    assertThat(counts.size()).isLessThanOrEqualTo(10);
    assertThat(counts.stream().mapToLong(Long::longValue).sum()).isEqualTo(2);
    int scale = point.getScale();
    int offset = point.getPositive().getOffset();
    assertThat(counts.get(ExponentialHistogram.index(3, scale) - offset)).isGreaterThan(0);
    assertThat(counts.get(ExponentialHistogram.index(250, scale) - offset)).isGreaterThan(0);
    assertThat(point.getNegative().getBucketCountsCount()).isZero();
  }

  @Test
  void theConnectorWritesExponentialDataPointsInSeconds() {
    Harness h = new Harness("histogram: {unit: s, exponential: {}}");
    h.send(request(service("svc"), span("op", 1500 * MS)));

    Metric duration = metric(h.flush(), "traces.span.metrics.duration");
    ExponentialHistogramDataPoint point = duration.getExponentialHistogram().getDataPoints(0);
    assertThat(duration.getUnit()).isEqualTo("s");
    assertThat(point.getSum()).isCloseTo(1.5, within(1e-12));
    assertThat(point.getScale()).isEqualTo(20);
    assertThat(point.getPositive().getOffset()).isEqualTo(ExponentialHistogram.index(1.5, 20));
    assertThat(point.getPositive().getBucketCountsList()).containsExactly(1L);
  }
}
