package dev.sluice.pdata.build;

import java.util.Arrays;

/**
 * A base-2 exponential histogram of non-negative values (durations), for components that aggregate
 * into exponential histogram points ({@link
 * MetricsBuilder.MetricWriter#exponentialHistogramPoint()}), as the Collector's connectors keep one
 * (its {@code go-expohisto} structure, the OpenTelemetry SDKs' algorithm): it starts at scale 20,
 * keeps at most {@code maxSize} positive buckets in a ring, and halves its resolution (scale minus
 * one, buckets merged in pairs) as often as a new value needs to fit. Zero goes to the zero bucket;
 * there are no negative buckets. Not thread-safe.
 */
public final class ExponentialHistogram {
  /** The scale a histogram starts at. */
  public static final int MAX_SCALE = 20;

  private static final int SIGNIFICAND_BITS = 52;
  private static final long SIGNIFICAND_MASK = (1L << SIGNIFICAND_BITS) - 1;

  private final int maxSize;
  private int scale = MAX_SCALE;
  private long count;
  private long zeroCount;
  private double sum;
  private double min;
  private double max;

  // Buckets [indexStart, indexEnd] at this scale, bucket i in counts[(i - indexBase) mod length].
  private long[] counts = new long[0];
  private int indexStart;
  private int indexEnd;
  private int indexBase;
  private boolean empty = true;

  public ExponentialHistogram(int maxSize) {
    this.maxSize = maxSize;
  }

  /** Records {@code value} (not negative) {@code times} times. */
  public void record(double value, long times) {
    if (times == 0) {
      return;
    }
    if (count == 0) {
      min = value;
      max = value;
    } else {
      min = Math.min(min, value);
      max = Math.max(max, value);
    }
    count += times;
    if (value == 0) {
      zeroCount += times;
      return;
    }
    sum += value * times;
    int index = index(value, scale);
    if (!increment(index, times)) {
      downscale(changeNeeded(index));
      increment(index(value, scale), times);
    }
  }

  /** Values recorded. */
  public long count() {
    return count;
  }

  /** Values recorded that were zero. */
  public long zeroCount() {
    return zeroCount;
  }

  /** The sum of the values recorded. */
  public double sum() {
    return sum;
  }

  /** The least value recorded; meaningless while {@link #count()} is 0. */
  public double min() {
    return min;
  }

  /** The greatest value recorded; meaningless while {@link #count()} is 0. */
  public double max() {
    return max;
  }

  /** The scale; 0 while every value is zero, as the Collector reports it. */
  public int scale() {
    return count == zeroCount ? 0 : scale;
  }

  /** The index of the first positive bucket. */
  public int offset() {
    return empty ? 0 : indexStart;
  }

  /** The positive buckets' counts, from {@link #offset()}; a new array. */
  public long[] bucketCounts() {
    if (empty) {
      return new long[0];
    }
    long[] out = new long[indexEnd - indexStart + 1];
    for (int i = indexStart; i <= indexEnd; i++) {
      out[i - indexStart] = counts[slot(i)];
    }
    return out;
  }

  /**
   * Writes the histogram as the point {@code metric} writes next ({@link
   * MetricsBuilder.MetricWriter#exponentialHistogramPoint()}): count, sum, scale, zero count, the
   * positive buckets, and min and max once a value was recorded. Returns the point, for its
   * attributes and times.
   */
  public DataPointWriter writeTo(MetricsBuilder.MetricWriter metric) {
    DataPointWriter point =
        metric
            .exponentialHistogramPoint()
            .count(count)
            .sum(sum)
            .scale(scale())
            .zeroCount(zeroCount)
            .positive(offset(), bucketCounts());
    if (count > 0) {
      point.min(min).max(max);
    }
    return point;
  }

  /** Forgets every value recorded; the scale starts over at {@link #MAX_SCALE}. */
  public void clear() {
    scale = MAX_SCALE;
    count = 0;
    zeroCount = 0;
    sum = 0;
    min = 0;
    max = 0;
    Arrays.fill(counts, 0);
    empty = true;
  }

  /** Adds to bucket {@code index}; false when it is too far from the others to fit. */
  private boolean increment(int index, long times) {
    if (empty) {
      if (counts.length == 0) {
        counts = new long[Math.min(maxSize, 8)];
      }
      indexStart = index;
      indexEnd = index;
      indexBase = index;
      empty = false;
    } else if (index < indexStart) {
      int span = indexEnd - index;
      if (span >= maxSize) {
        return false;
      }
      if (span >= counts.length) {
        grow(span + 1);
      }
      indexStart = index;
    } else if (index > indexEnd) {
      int span = index - indexStart;
      if (span >= maxSize) {
        return false;
      }
      if (span >= counts.length) {
        grow(span + 1);
      }
      indexEnd = index;
    }
    counts[slot(index)] += times;
    return true;
  }

  private int slot(int index) {
    int slot = index - indexBase;
    return slot < 0 ? slot + counts.length : slot;
  }

  /** Grows the ring to at least {@code needed} (at most maxSize), unrotated. */
  private void grow(int needed) {
    int length = Math.min(maxSize, Math.max(needed, counts.length * 2));
    long[] grown = new long[length];
    for (int i = indexStart; i <= indexEnd; i++) {
      grown[i - indexStart] = counts[slot(i)];
    }
    counts = grown;
    indexBase = indexStart;
  }

  /** How many halvings bring the buckets and {@code index} within maxSize of each other. */
  private int changeNeeded(int index) {
    int low = Math.min(index, indexStart);
    int high = Math.max(index, indexEnd);
    int change = 0;
    while (high - low >= maxSize) {
      high >>= 1;
      low >>= 1;
      change++;
    }
    return change;
  }

  /** Lowers the scale by {@code by}, merging each 2^by neighbouring buckets into one. */
  private void downscale(int by) {
    if (by == 0) {
      return;
    }
    // Unrotate, so that bucket indexStart is at 0.
    long[] ordered = new long[counts.length];
    for (int i = indexStart; i <= indexEnd; i++) {
      ordered[i - indexStart] += counts[slot(i)];
    }
    Arrays.fill(counts, 0);
    int newStart = indexStart >> by;
    for (int i = indexStart; i <= indexEnd; i++) {
      counts[(i >> by) - newStart] += ordered[i - indexStart];
    }
    indexStart = newStart;
    indexEnd >>= by;
    indexBase = indexStart;
    scale -= by;
  }

  /** The bucket of positive {@code value} at {@code scale}: the bucket (base^i, base^(i+1)]. */
  public static int index(double value, int scale) {
    long bits = Double.doubleToRawLongBits(value);
    int exponent = Math.getExponent(value);
    long significand = bits & SIGNIFICAND_MASK;
    if (exponent < Double.MIN_EXPONENT) {
      // Subnormal: the smallest bucket the scale has, as the Go mapping clamps it.
      return minIndex(scale);
    }
    if (scale <= 0) {
      int correction = significand == 0 ? -1 : 0; // an exact power of two is its bucket's top
      return (exponent + correction) >> -scale;
    }
    if (significand == 0) {
      return (exponent << scale) - 1;
    }
    double scaleFactor = Math.scalb(1.4426950408889634, scale); // log2(e) * 2^scale
    int index = (int) Math.floor(Math.log(value) * scaleFactor);
    int maxIndex = ((Double.MAX_EXPONENT + 1) << scale) - 1;
    return Math.min(index, maxIndex);
  }

  private static int minIndex(int scale) {
    if (scale <= 0) {
      return (Double.MIN_EXPONENT - 1) >> -scale;
    }
    return (Double.MIN_EXPONENT << scale) - 1;
  }
}
