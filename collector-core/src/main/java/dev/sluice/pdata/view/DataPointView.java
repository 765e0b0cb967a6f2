package dev.sluice.pdata.view;

import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.MessageView;
import dev.sluice.pdata.internal.OtlpFields.Buckets;
import dev.sluice.pdata.internal.OtlpFields.DataPoint;
import dev.sluice.pdata.internal.OtlpFields.ExponentialHistogramDataPoint;
import dev.sluice.pdata.internal.OtlpFields.HistogramDataPoint;
import dev.sluice.pdata.internal.OtlpFields.NumberDataPoint;
import dev.sluice.pdata.internal.OtlpFields.SummaryDataPoint;
import dev.sluice.pdata.internal.OtlpFields.ValueAtQuantile;
import dev.sluice.pdata.internal.Overlay;
import dev.sluice.pdata.internal.PlainMessage;
import dev.sluice.pdata.internal.ViewWire;

/**
 * A cursor over the data points a {@link MetricView} covers, reading the current one in place. One
 * class serves the four kinds of data point: the accessors of other kinds give defaults (0, false,
 * empty). Exemplars are walked with an {@link ExemplarView}. Made once by the caller (or handed
 * over by {@link BatchView#forEachDataPoint}); valid as long as the metric view that pointed it.
 *
 * <p>Repeated scalars ({@code bucket_counts}, {@code explicit_bounds}) are read by index without
 * copying: constant time when packed in one run, as every SDK sends them. Bucket counts of
 * exponential histograms and quantiles are varint-packed or nested, so reading element {@code i}
 * walks the elements before it.
 */
public final class DataPointView extends MessageView {
  private static final int MAX_FIELD_NUMBER = ExponentialHistogramDataPoint.ZERO_THRESHOLD;

  private OtlpIndex index;
  // Replacements for the points, looked up first in `first`, then in `second` (either may be null).
  private Overlay first;
  private Overlay second;
  private MetricType type = MetricType.EMPTY;
  private int row;
  private int rowEnd;
  // Reads a point's nested messages: Buckets and ValueAtQuantile.
  private final PlainMessage nested =
      new PlainMessage(Math.max(Buckets.BUCKET_COUNTS, ValueAtQuantile.VALUE));

  public DataPointView() {
    super(MAX_FIELD_NUMBER);
  }

  void point(
      OtlpIndex index, MetricType type, int rowFrom, int rowTo, Overlay first, Overlay second) {
    if (this.index != index) {
      this.index = index;
    }
    if (this.first != first) {
      this.first = first;
    }
    if (this.second != second) {
      this.second = second;
    }
    this.type = type;
    this.row = rowFrom;
    this.rowEnd = rowTo;
    clear();
  }

  @Override
  @Internal
  public void release() {
    super.release();
    index = null;
    first = null;
    second = null;
    row = 0;
    rowEnd = 0;
    nested.release();
  }

  /** Moves to the next data point and reads it from now on; false (and empty) after the last. */
  public boolean next() {
    while (row < rowEnd && dropped(row)) {
      row++;
    }
    if (row >= rowEnd) {
      clear();
      return false;
    }
    if (first != null && first.unitOffset(row) >= 0) {
      wrapPayload(first.bytes(), ViewWire.skipVarint(first.bytes(), first.unitOffset(row)));
    } else if (second != null && second.unitOffset(row) >= 0) {
      wrapPayload(second.bytes(), ViewWire.skipVarint(second.bytes(), second.unitOffset(row)));
    } else {
      byte[] source = index.source();
      wrapPayload(source, ViewWire.skipVarint(source, index.dataPointStart(row)));
    }
    row++;
    return true;
  }

  /** Whether a visit dropped the point: it is not shown. */
  private boolean dropped(int row) {
    return (first != null && first.unitDropped(row)) || (second != null && second.unitDropped(row));
  }

  /** Reads the one data point message {@code bytes[from, to)}; next() then ends the walk. */
  @Internal
  public void single(OtlpIndex index, MetricType type, byte[] bytes, int from, int to) {
    point(index, type, 0, 0, null, null);
    wrapRegion(bytes, from, to);
  }

  /** The kind of the metric the data point belongs to. */
  public MetricType type() {
    return type;
  }

  /** Points {@code cursor} at the data point's attributes. */
  public AttributeCursor attributes(AttributeCursor cursor) {
    return attributes(attributesField(), cursor);
  }

  public long startTimeUnixNano() {
    return fixed64(DataPoint.START_TIME_UNIX_NANO);
  }

  public long timeUnixNano() {
    return fixed64(DataPoint.TIME_UNIX_NANO);
  }

  /** {@code DataPointFlags}. */
  public int flags() {
    return (int) varint(flagsField());
  }

  // Number data points (gauge, sum).

  /** Whether a number data point holds {@code as_double} (last one on the wire wins). */
  public boolean isDouble() {
    return type.ordinal() <= MetricType.SUM.ordinal()
        && at(NumberDataPoint.AS_DOUBLE) > at(NumberDataPoint.AS_INT);
  }

  /** Whether a number data point holds {@code as_int}. */
  public boolean isInt() {
    return type.ordinal() <= MetricType.SUM.ordinal()
        && at(NumberDataPoint.AS_INT) > at(NumberDataPoint.AS_DOUBLE);
  }

  public double doubleValue() {
    return isDouble() ? double64(NumberDataPoint.AS_DOUBLE) : 0;
  }

  public long intValue() {
    return isInt() ? fixed64(NumberDataPoint.AS_INT) : 0;
  }

  // Histograms, exponential histograms, summaries.

  public long count() {
    return hasCountAndSum() ? fixed64(DataPoint.COUNT) : 0;
  }

  /**
   * Whether {@code sum} is set: optional for (exponential) histograms; a summary's sum is plain, so
   * there this says whether it is other than 0.
   */
  public boolean hasSum() {
    return hasCountAndSum() && has(DataPoint.SUM);
  }

  public double sum() {
    return hasCountAndSum() ? double64(DataPoint.SUM) : 0;
  }

  public boolean hasMin() {
    return minField() > 0 && has(minField());
  }

  public double min() {
    return minField() > 0 ? double64(minField()) : 0;
  }

  public boolean hasMax() {
    return maxField() > 0 && has(maxField());
  }

  public double max() {
    return maxField() > 0 ? double64(maxField()) : 0;
  }

  // Histograms.

  public int bucketCountsCount() {
    return type == MetricType.HISTOGRAM ? fixed64Count(HistogramDataPoint.BUCKET_COUNTS) : 0;
  }

  public long bucketCount(int index) {
    return type == MetricType.HISTOGRAM ? fixed64At(HistogramDataPoint.BUCKET_COUNTS, index) : 0;
  }

  public int explicitBoundsCount() {
    return type == MetricType.HISTOGRAM ? fixed64Count(HistogramDataPoint.EXPLICIT_BOUNDS) : 0;
  }

  public double explicitBound(int index) {
    return type == MetricType.HISTOGRAM
        ? Double.longBitsToDouble(fixed64At(HistogramDataPoint.EXPLICIT_BOUNDS, index))
        : 0;
  }

  // Exponential histograms.

  public int scale() {
    return isExponential() ? ViewWire.zigzag32(varint(ExponentialHistogramDataPoint.SCALE)) : 0;
  }

  public long zeroCount() {
    return isExponential() ? fixed64(ExponentialHistogramDataPoint.ZERO_COUNT) : 0;
  }

  public double zeroThreshold() {
    return isExponential() ? double64(ExponentialHistogramDataPoint.ZERO_THRESHOLD) : 0;
  }

  /** {@code positive.offset}. */
  public int positiveOffset() {
    return bucketsOffset(ExponentialHistogramDataPoint.POSITIVE);
  }

  public int positiveBucketCountsCount() {
    return bucketsCount(ExponentialHistogramDataPoint.POSITIVE);
  }

  public long positiveBucketCount(int index) {
    return bucketsAt(ExponentialHistogramDataPoint.POSITIVE, index);
  }

  /** {@code negative.offset}. */
  public int negativeOffset() {
    return bucketsOffset(ExponentialHistogramDataPoint.NEGATIVE);
  }

  public int negativeBucketCountsCount() {
    return bucketsCount(ExponentialHistogramDataPoint.NEGATIVE);
  }

  public long negativeBucketCount(int index) {
    return bucketsAt(ExponentialHistogramDataPoint.NEGATIVE, index);
  }

  // Exemplars (of number, histogram and exponential histogram points).

  /** Exemplars of the data point (0 for a summary's, which has none); walks them. */
  public int exemplarCount() {
    int field = exemplarsField();
    return field > 0 ? messageCount(field) : 0;
  }

  /**
   * Points {@code exemplars} before the data point's first exemplar; {@code exemplars.next()} walks
   * them. The cursor reads the point as this view does, an edited point's new bytes included.
   */
  public ExemplarView exemplars(ExemplarView exemplars) {
    int field = exemplarsField();
    if (field > 0) {
      exemplars.point(bytes, start, end, field);
    } else {
      exemplars.point(bytes, end, end, NumberDataPoint.EXEMPLARS);
    }
    return exemplars;
  }

  // Summaries.

  public int quantileValuesCount() {
    return type == MetricType.SUMMARY ? messageCount(SummaryDataPoint.QUANTILE_VALUES) : 0;
  }

  /** {@code quantile_values[index].quantile}. */
  public double quantile(int index) {
    return quantileField(index, ValueAtQuantile.QUANTILE);
  }

  /** {@code quantile_values[index].value}. */
  public double quantileValue(int index) {
    return quantileField(index, ValueAtQuantile.VALUE);
  }

  private double quantileField(int index, int field) {
    int p = type == MetricType.SUMMARY ? messageAt(SummaryDataPoint.QUANTILE_VALUES, index) : -1;
    if (p < 0) {
      return 0;
    }
    nested.wrapPayload(bytes, p);
    return nested.double64(field);
  }

  private int attributesField() {
    switch (type) {
      case HISTOGRAM:
        return HistogramDataPoint.ATTRIBUTES;
      case EXPONENTIAL_HISTOGRAM:
        return ExponentialHistogramDataPoint.ATTRIBUTES;
      case SUMMARY:
        return SummaryDataPoint.ATTRIBUTES;
      default:
        return NumberDataPoint.ATTRIBUTES;
    }
  }

  /** The field number of {@code exemplars}, or 0 where there is none. */
  private int exemplarsField() {
    switch (type) {
      case GAUGE:
      case SUM:
        return NumberDataPoint.EXEMPLARS;
      case HISTOGRAM:
        return HistogramDataPoint.EXEMPLARS;
      case EXPONENTIAL_HISTOGRAM:
        return ExponentialHistogramDataPoint.EXEMPLARS;
      default:
        return 0;
    }
  }

  private int flagsField() {
    switch (type) {
      case HISTOGRAM:
        return HistogramDataPoint.FLAGS;
      case EXPONENTIAL_HISTOGRAM:
        return ExponentialHistogramDataPoint.FLAGS;
      case SUMMARY:
        return SummaryDataPoint.FLAGS;
      default:
        return NumberDataPoint.FLAGS;
    }
  }

  /** The field number of {@code min}, or 0 where there is none. */
  private int minField() {
    switch (type) {
      case HISTOGRAM:
        return HistogramDataPoint.MIN;
      case EXPONENTIAL_HISTOGRAM:
        return ExponentialHistogramDataPoint.MIN;
      default:
        return 0;
    }
  }

  /** The field number of {@code max}, or 0 where there is none. */
  private int maxField() {
    switch (type) {
      case HISTOGRAM:
        return HistogramDataPoint.MAX;
      case EXPONENTIAL_HISTOGRAM:
        return ExponentialHistogramDataPoint.MAX;
      default:
        return 0;
    }
  }

  private boolean hasCountAndSum() {
    return type.ordinal() >= MetricType.HISTOGRAM.ordinal();
  }

  private boolean isExponential() {
    return type == MetricType.EXPONENTIAL_HISTOGRAM;
  }

  private int bucketsOffset(int field) {
    return isExponential()
        ? ViewWire.zigzag32(nested.wrapField(this, field).varint(Buckets.OFFSET))
        : 0;
  }

  private int bucketsCount(int field) {
    if (!isExponential()) {
      return 0;
    }
    PlainMessage buckets = nested.wrapField(this, field);
    return buckets.varintCount(Buckets.BUCKET_COUNTS);
  }

  private long bucketsAt(int field, int index) {
    if (!isExponential()) {
      return 0;
    }
    return nested.wrapField(this, field).varintAt(Buckets.BUCKET_COUNTS, index);
  }
}
