package dev.sluice.connector.spanmetrics;

import dev.sluice.pdata.build.DataPointWriter;
import dev.sluice.pdata.build.MetricsBuilder;
import dev.sluice.pdata.build.ValueWriter;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.view.MetricView;
import java.nio.charset.StandardCharsets;

/**
 * Builds the metrics request a flush hands on, from the aggregator's state, with a {@link
 * MetricsBuilder}: a resource block per resource (carrying its attributes), one scope block named
 * {@code spanmetricsconnector}, and the {@code calls} sum, the {@code duration} histogram and the
 * {@code events} sum with a data point per series. A cumulative metric shows every series; a delta
 * one those counted into since the last flush handed on. Allocates (strings for attributes, bucket
 * arrays): it runs once per flush, not per span.
 */
final class RequestWriter {
  static final String SCOPE_NAME = "spanmetricsconnector";

  private final Aggregator aggregator;
  private final KeyLayout layout;
  private final String collectorInstanceId;
  private final String callsName;
  private final String durationName;
  private final String eventsName;
  private final String unit;
  private final int temporality;
  private final MetricsBuilder metrics = new MetricsBuilder();
  private final byte[] traceId = new byte[16];
  private final byte[] spanId = new byte[8];

  RequestWriter(Aggregator aggregator, SpanMetricsConfig config, String collectorInstanceId) {
    this.aggregator = aggregator;
    this.layout = aggregator.layout;
    this.collectorInstanceId = collectorInstanceId;
    this.callsName = name(config.namespace(), "calls");
    this.durationName = name(config.namespace(), "duration");
    this.eventsName = name(config.namespace(), "events");
    this.unit = config.histogram().unit();
    this.temporality =
        aggregator.delta() ? MetricView.TEMPORALITY_DELTA : MetricView.TEMPORALITY_CUMULATIVE;
  }

  /** {@code namespace.name}, or the name alone without a namespace. */
  static String name(String namespace, String name) {
    return namespace == null || namespace.isEmpty() ? name : namespace + "." + name;
  }

  /** The request of the state at {@code unixNanos}; null when there is nothing to show. */
  OtlpIndex write(long unixNanos) {
    metrics.reset();
    boolean any = false;
    ResourceTable resources = aggregator.resources;
    for (int i = 0; i < resources.size(); i++) {
      ResourceState resource = resources.get(i);
      boolean calls = shows(resource.calls);
      boolean duration = shows(resource.duration);
      boolean events = shows(resource.events);
      if (!calls && !duration && !events) {
        continue;
      }
      any = true;
      resourceAttributes(resource.attributes, metrics.resource().attributes());
      metrics.scope().name(SCOPE_NAME);
      if (calls) {
        sums(callsName, resource.calls, layout.calls, unixNanos);
      }
      if (duration) {
        histograms(resource.duration, unixNanos);
      }
      if (events) {
        sums(eventsName, resource.events, layout.events, unixNanos);
      }
    }
    try {
      return any ? metrics.build() : null;
    } finally {
      metrics.reset();
    }
  }

  private boolean shows(SeriesTable table) {
    if (table == null) {
      return false;
    }
    for (int i = 0; i < table.size(); i++) {
      if (shown(table.get(i))) {
        return true;
      }
    }
    return false;
  }

  private boolean shown(Series series) {
    return !aggregator.delta() || series.touched;
  }

  private static void resourceAttributes(byte[] entries, ValueWriter out) {
    int p = 0;
    while (p < entries.length) {
      long prefix = ValueCodec.readLength(entries, p);
      int from = (int) (prefix >>> 32);
      String key = new String(entries, from, (int) prefix, StandardCharsets.UTF_8);
      p = ValueCodec.put(entries, from + (int) prefix, key, out);
    }
  }

  private void sums(String name, SeriesTable table, KeyLayout.Use[] extra, long unixNanos) {
    MetricsBuilder.MetricWriter metric = metrics.metric().name(name).sum(temporality, true);
    for (int i = 0; i < table.size(); i++) {
      Series series = table.get(i);
      if (!shown(series)) {
        continue;
      }
      DataPointWriter point =
          metric
              .numberPoint()
              .startTimeUnixNano(series.startUnixNanos)
              .timeUnixNano(unixNanos)
              // A cumulative sum's first point is 0, as in the Collector, so that a backend that
              // drops a series' first point (Prometheus) still sees its first increase.
              .intValue(aggregator.delta() || series.emitted ? series.count : 0);
      attributes(series, extra, point.attributes());
      exemplars(series, point, unixNanos);
    }
  }

  private void histograms(SeriesTable table, long unixNanos) {
    MetricsBuilder.MetricWriter metric = metrics.metric().name(durationName).unit(unit);
    double[] bounds = aggregator.bounds();
    if (bounds != null) {
      metric.histogram(temporality);
    } else {
      metric.exponentialHistogram(temporality);
    }
    for (int i = 0; i < table.size(); i++) {
      Series series = table.get(i);
      if (!shown(series)) {
        continue;
      }
      DataPointWriter point;
      if (bounds != null) {
        point =
            metric
                .histogramPoint()
                .count(series.count)
                .sum(series.sum)
                .buckets(bounds, series.bucketCounts);
      } else {
        point = series.exponential.writeTo(metric);
      }
      point.startTimeUnixNano(series.startUnixNanos).timeUnixNano(unixNanos);
      attributes(series, layout.duration, point.attributes());
      exemplars(series, point, unixNanos);
    }
  }

  private void attributes(Series series, KeyLayout.Use[] extra, ValueWriter out) {
    if (series.overflow()) {
      out.put(KeyLayout.OVERFLOW, true);
    } else {
      layout.putAttributes(series.key, layout.common, extra, collectorInstanceId, out);
    }
  }

  private void exemplars(Series series, DataPointWriter point, long unixNanos) {
    for (int e = 0; e < series.exemplarCount; e++) {
      longBytes(series.exemplarTraceIdHigh(e), traceId, 0);
      longBytes(series.exemplarTraceIdLow(e), traceId, 8);
      longBytes(series.exemplarSpanId(e), spanId, 0);
      DataPointWriter.ExemplarWriter exemplar = point.exemplar().timeUnixNano(unixNanos);
      exemplar.doubleValue(series.exemplarValue(e)).traceId(traceId);
      if (series.exemplarSpanId(e) != 0) {
        exemplar.spanId(spanId);
      }
    }
  }

  private static void longBytes(long value, byte[] out, int offset) {
    for (int i = 0; i < 8; i++) {
      out[offset + i] = (byte) (value >>> (56 - 8 * i));
    }
  }
}
