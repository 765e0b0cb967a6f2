package dev.sluice.connector.servicegraph;

import dev.sluice.pdata.build.ExponentialHistogram;
import java.util.List;

/**
 * One series: the edges between two nodes with the same connection type, outcome and dimensions,
 * and what has been counted for them since the connector started (the metrics are cumulative).
 */
final class Series {
  /**
   * What tells series apart, and their attributes.
   *
   * @param dimensions per configured dimension, its client value then its server value, null where
   *     a side did not have it
   * @param virtualNode the {@code virtual_node} value; null when the label is not added
   */
  record Key(
      String client,
      String server,
      String connectionType,
      boolean failed,
      List<String> dimensions,
      String virtualNode) {}

  /** The key of the overflow series, which carries only {@code otel.metric.overflow}. */
  static final Key OVERFLOW = new Key("", "", "", false, List.of(), null);

  final Key key;

  /** {@link SeriesTable#hash} of its key. */
  final int hash;

  /** Scheduler nanoseconds of the last edge counted, for the 15-minute staleness. */
  long lastUpdatedNanos;

  long requests;
  long failedRequests;
  final Latency server;
  final Latency client;

  Series(Key key, int hash, double[] bounds, int exponentialMaxSize) {
    this.key = key;
    this.hash = hash;
    this.server = new Latency(bounds, exponentialMaxSize);
    this.client = new Latency(bounds, exponentialMaxSize);
  }

  boolean overflow() {
    return key == OVERFLOW;
  }

  /** A latency histogram in seconds: explicit buckets, or exponential. */
  static final class Latency {
    private final double[] bounds;
    long count;
    double sum;
    final long[] bucketCounts;
    final ExponentialHistogram exponential;

    Latency(double[] bounds, int exponentialMaxSize) {
      this.bounds = bounds;
      this.bucketCounts = bounds != null ? new long[bounds.length + 1] : null;
      this.exponential = bounds == null ? new ExponentialHistogram(exponentialMaxSize) : null;
    }

    void record(double seconds) {
      if (exponential != null) {
        exponential.record(seconds, 1);
        return;
      }
      count++;
      sum += seconds;
      bucketCounts[bucket(seconds)]++;
    }

    /** The first bucket whose upper bound is at least {@code value} (Go's SearchFloat64s). */
    private int bucket(double value) {
      int low = 0;
      int high = bounds.length;
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (bounds[mid] < value) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      return low;
    }
  }
}
