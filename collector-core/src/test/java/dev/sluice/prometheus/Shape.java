package dev.sluice.prometheus;

import dev.sluice.pdata.build.MetricsBuilder;
import dev.sluice.pdata.build.MetricsBuilder.MetricWriter;
import dev.sluice.pdata.view.MetricType;
import dev.sluice.pdata.view.MetricView;

/** The kinds of metric the name rules tell apart, and how to write one of each for a view. */
enum Shape {
  GAUGE(MetricType.GAUGE, false),
  COUNTER(MetricType.SUM, true),
  UP_DOWN(MetricType.SUM, false),
  HISTOGRAM(MetricType.HISTOGRAM, false),
  EXPONENTIAL(MetricType.EXPONENTIAL_HISTOGRAM, false),
  SUMMARY(MetricType.SUMMARY, false),
  EMPTY(MetricType.EMPTY, false);

  final MetricType type;
  final boolean monotonic;

  Shape(MetricType type, boolean monotonic) {
    this.type = type;
    this.monotonic = monotonic;
  }

  /** Writes a metric of this shape, with one data point, into {@code metrics}' current scope. */
  void write(MetricsBuilder metrics, String name, String unit) {
    MetricWriter metric = metrics.metric().name(name).unit(unit);
    switch (this) {
      case GAUGE -> metric.gauge().numberPoint().timeUnixNano(1).intValue(1);
      case COUNTER, UP_DOWN ->
          metric
              .sum(MetricView.TEMPORALITY_CUMULATIVE, monotonic)
              .numberPoint()
              .timeUnixNano(1)
              .doubleValue(1.5);
      case HISTOGRAM ->
          metric
              .histogram(MetricView.TEMPORALITY_CUMULATIVE)
              .histogramPoint()
              .timeUnixNano(1)
              .count(1)
              .buckets(new double[] {1}, new long[] {1, 0});
      case EXPONENTIAL ->
          metric
              .exponentialHistogram(MetricView.TEMPORALITY_CUMULATIVE)
              .exponentialHistogramPoint()
              .timeUnixNano(1)
              .count(1)
              .zeroCount(1);
      case SUMMARY -> metric.summary().summaryPoint().timeUnixNano(1).count(1).quantile(0.5, 2);
      case EMPTY -> {}
    }
  }
}
