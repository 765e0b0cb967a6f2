package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.BucketSpan;
import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.Histogram;
import dev.sluice.pdata.view.DataPointView;
import java.util.Arrays;

/**
 * Exponential histogram points as Prometheus native histograms, laid out as the Collector lays them
 * out: the count and zero count as integers, the zero threshold (1e-128 when the point has none),
 * scales above 8 merged down to 8, each side's buckets as spans and deltas. Writes the {@code
 * Histogram} message's fields, which 1.0 and 2.0 share. Owned by one thread; its scratch arrays are
 * kept.
 */
final class NativeHistograms {
  static final int MIN_SCALE = -4;
  static final int MAX_SCALE = 8;
  private static final double DEFAULT_ZERO_THRESHOLD = 1e-128;

  private long[] spans = new long[16];
  private long[] deltas = new long[64];

  /** Writes the point (of a scale of at least {@link #MIN_SCALE}) into {@code out}. */
  void write(DataPointView point, boolean stale, int scaleDown, long timestamp, Buf out) {
    out.tag(Histogram.COUNT_INT, Buf.VARINT);
    out.varint(stale ? Translator.STALE_NAN : point.count());
    if (stale) {
      out.doubleField(Histogram.SUM, Double.longBitsToDouble(Translator.STALE_NAN));
    } else if (point.hasSum()) {
      out.doubleField(Histogram.SUM, point.sum());
    }
    out.varintField(Histogram.SCHEMA, Buf.zigzag32(Math.min(point.scale(), MAX_SCALE)));
    double threshold = point.zeroThreshold();
    out.doubleField(Histogram.ZERO_THRESHOLD, threshold != 0 ? threshold : DEFAULT_ZERO_THRESHOLD);
    out.tag(Histogram.ZERO_COUNT_INT, Buf.VARINT);
    out.varint(point.zeroCount());
    buckets(
        point,
        out,
        false,
        point.negativeOffset(),
        point.negativeBucketCountsCount(),
        scaleDown,
        Histogram.NEGATIVE_SPANS,
        Histogram.NEGATIVE_DELTAS);
    buckets(
        point,
        out,
        true,
        point.positiveOffset(),
        point.positiveBucketCountsCount(),
        scaleDown,
        Histogram.POSITIVE_SPANS,
        Histogram.POSITIVE_DELTAS);
    out.varintField(Histogram.TIMESTAMP, timestamp);
  }

  /**
   * Writes one side's buckets as Prometheus' spans and deltas: buckets merged {@code 2^scaleDown}
   * at a time, gaps of up to two empty buckets filled with zeros, longer ones starting a new span,
   * as the Collector lays them out.
   */
  private void buckets(
      DataPointView point,
      Buf out,
      boolean positive,
      int offset,
      int n,
      int scaleDown,
      int spansField,
      int deltasField) {
    if (n == 0) {
      return;
    }
    int spanCount = 0;
    int deltaCount = 0;
    long previous = 0;
    long count = 0;
    int bucket = (offset >> scaleDown) + 1;
    spanCount = addSpan(spanCount, bucket);
    for (int i = 0; i < n; i++) {
      int next = ((i + offset) >> scaleDown) + 1;
      long counted = positive ? point.positiveBucketCount(i) : point.negativeBucketCount(i);
      if (bucket == next) {
        count += counted;
        continue;
      }
      if (count == 0) {
        count = counted;
        continue;
      }
      int gap = next - bucket - 1;
      if (gap > 2) {
        spanCount = addSpan(spanCount, gap);
      } else {
        for (int g = 0; g < gap; g++) {
          deltaCount = addDelta(deltaCount, spanCount, 0 - previous);
          previous = 0;
        }
      }
      deltaCount = addDelta(deltaCount, spanCount, count - previous);
      previous = count;
      count = counted;
      bucket = next;
    }
    int gap = ((n + offset - 1) >> scaleDown) + 1 - bucket;
    if (gap > 2) {
      spanCount = addSpan(spanCount, gap);
    } else {
      for (int g = 0; g < gap; g++) {
        deltaCount = addDelta(deltaCount, spanCount, 0 - previous);
        previous = 0;
      }
    }
    deltaCount = addDelta(deltaCount, spanCount, count - previous);
    for (int i = 0; i < spanCount; i++) {
      int spanOffset = (int) (spans[i] >> 32);
      int length = (int) spans[i];
      int size = Buf.varintFieldSize(Buf.zigzag32(spanOffset)) + Buf.varintFieldSize(length);
      out.tag(spansField, Buf.LEN);
      out.varint(size);
      out.varintField(BucketSpan.OFFSET, Buf.zigzag32(spanOffset));
      out.varintField(BucketSpan.LENGTH, length);
    }
    int packed = 0;
    for (int i = 0; i < deltaCount; i++) {
      packed += Buf.varintSize(Buf.zigzag64(deltas[i]));
    }
    out.tag(deltasField, Buf.LEN);
    out.varint(packed);
    for (int i = 0; i < deltaCount; i++) {
      out.varint(Buf.zigzag64(deltas[i]));
    }
  }

  /** A span of {@code offset} and length 0; its length grows with each delta. */
  private int addSpan(int spanCount, int offset) {
    if (spanCount == spans.length) {
      spans = Arrays.copyOf(spans, spanCount * 2);
    }
    spans[spanCount] = (long) offset << 32;
    return spanCount + 1;
  }

  private int addDelta(int deltaCount, int spanCount, long delta) {
    if (deltaCount == deltas.length) {
      deltas = Arrays.copyOf(deltas, deltaCount * 2);
    }
    deltas[deltaCount] = delta;
    spans[spanCount - 1] =
        (spans[spanCount - 1] & 0xFFFFFFFF00000000L) | ((spans[spanCount - 1] + 1) & 0xFFFFFFFFL);
    return deltaCount + 1;
  }
}
