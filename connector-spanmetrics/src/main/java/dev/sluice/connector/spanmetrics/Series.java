package dev.sluice.connector.spanmetrics;

import dev.sluice.pdata.build.ExponentialHistogram;
import java.util.Arrays;

/**
 * One series of one metric of one resource: its key (the encoded dimension values, which are also
 * its attributes) and what has been aggregated into it. A sum counts; a histogram counts, sums and
 * buckets (explicit bounds, or an {@link ExponentialHistogram}). Up to {@code maxExemplars}
 * exemplars are kept until the next flush hands them on.
 */
final class Series {
  /** The key of the overflow series, which carries only {@code otel.metric.overflow}. */
  static final byte[] OVERFLOW_KEY = new byte[0];

  final byte[] key;
  final long hash;

  /** When the data point's time span starts, in Unix nanoseconds. */
  long startUnixNanos;

  /** Scheduler nanoseconds of the last span counted, for {@code series_expiration}. */
  long lastSeenNanos;

  /** Counted into since the last flush that was handed on (what a delta flush emits). */
  boolean touched;

  /**
   * Emitted by a flush that was handed on (a cumulative sum's first point is 0, see Aggregator).
   */
  boolean emitted;

  long count;
  double sum;
  final long[] bucketCounts;
  final ExponentialHistogram exponential;

  // Exemplars: trace ID halves and span ID, three longs each, and their values.
  private final long[] exemplarIds;
  private final double[] exemplarValues;
  int exemplarCount;

  Series(
      byte[] key,
      long hash,
      int explicitBuckets,
      int exponentialMaxSize,
      int maxExemplars,
      long startUnixNanos) {
    this.key = key;
    this.hash = hash;
    this.bucketCounts = explicitBuckets > 0 ? new long[explicitBuckets] : null;
    this.exponential = exponentialMaxSize > 0 ? new ExponentialHistogram(exponentialMaxSize) : null;
    this.exemplarIds = maxExemplars > 0 ? new long[3 * maxExemplars] : null;
    this.exemplarValues = maxExemplars > 0 ? new double[maxExemplars] : null;
    this.startUnixNanos = startUnixNanos;
  }

  boolean overflow() {
    return key == OVERFLOW_KEY;
  }

  /** Counts into a sum. */
  void add(long n) {
    count += n;
  }

  /** Records into an explicit-bucket histogram: bucket {@code bucket}, {@code n} times. */
  void observe(double value, int bucket, long n) {
    count += n;
    sum += value * n;
    bucketCounts[bucket] += n;
  }

  /** Records into an exponential histogram, {@code n} times. */
  void observeExponential(double value, long n) {
    exponential.record(value, n);
  }

  /** Keeps an exemplar, unless there are as many as allowed already. */
  void exemplar(long traceIdHigh, long traceIdLow, long spanId, double value) {
    if (exemplarValues == null || exemplarCount == exemplarValues.length) {
      return;
    }
    int i = exemplarCount++;
    exemplarIds[3 * i] = traceIdHigh;
    exemplarIds[3 * i + 1] = traceIdLow;
    exemplarIds[3 * i + 2] = spanId;
    exemplarValues[i] = value;
  }

  long exemplarTraceIdHigh(int i) {
    return exemplarIds[3 * i];
  }

  long exemplarTraceIdLow(int i) {
    return exemplarIds[3 * i + 1];
  }

  long exemplarSpanId(int i) {
    return exemplarIds[3 * i + 2];
  }

  double exemplarValue(int i) {
    return exemplarValues[i];
  }

  /** Starts the next delta interval: nothing counted yet. */
  void clearValues() {
    count = 0;
    sum = 0;
    if (bucketCounts != null) {
      Arrays.fill(bucketCounts, 0);
    }
    if (exponential != null) {
      exponential.clear();
    }
  }
}
