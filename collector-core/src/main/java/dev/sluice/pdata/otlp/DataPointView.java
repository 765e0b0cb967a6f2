package dev.sluice.pdata.otlp;

/**
 * A cursor over the data points a {@link MetricView} covers, reading the current one in place. One
 * class serves the four kinds of data point: the accessors of other kinds give defaults (0, false,
 * empty). Made once by the caller (or handed over by {@link BatchView#forEachDataPoint}); valid as
 * long as the metric view that pointed it.
 *
 * <p>Repeated scalars ({@code bucket_counts}, {@code explicit_bounds}) are read by index without
 * copying: constant time when packed in one run, as every SDK sends them. Bucket counts of
 * exponential histograms and quantiles are varint-packed or nested, so reading element {@code i}
 * walks the elements before it.
 */
public final class DataPointView extends MessageView {
  private static final int START_TIME_UNIX_NANO = 2;
  private static final int TIME_UNIX_NANO = 3;
  private static final int COUNT = 4;
  private static final int SUM = 5;

  private static final int NUMBER_AS_DOUBLE = 4;
  private static final int NUMBER_AS_INT = 6;

  private static final int HISTOGRAM_BUCKET_COUNTS = 6;
  private static final int HISTOGRAM_EXPLICIT_BOUNDS = 7;

  private static final int EXP_SCALE = 6;
  private static final int EXP_ZERO_COUNT = 7;
  private static final int EXP_POSITIVE = 8;
  private static final int EXP_NEGATIVE = 9;
  private static final int EXP_ZERO_THRESHOLD = 14;
  private static final int BUCKETS_OFFSET = 1;
  private static final int BUCKETS_COUNTS = 2;

  private static final int SUMMARY_QUANTILE_VALUES = 6;
  private static final int QUANTILE = 1;
  private static final int QUANTILE_VALUE = 2;

  // Fields whose number differs between the kinds of data point.
  private static final int NUMBER_AND_SUMMARY_ATTRIBUTES = 7;
  private static final int HISTOGRAM_ATTRIBUTES = 9;
  private static final int EXP_ATTRIBUTES = 1;
  private static final int NUMBER_AND_SUMMARY_FLAGS = 8;
  private static final int HISTOGRAMS_FLAGS = 10;
  private static final int HISTOGRAM_MIN = 11;
  private static final int EXP_MIN = 12;

  private static final int MAX_FIELD_NUMBER = EXP_ZERO_THRESHOLD;

  private OtlpIndex index;
  // Replacements for the points, looked up first in `first`, then in `second` (either may be null).
  private Overlay first;
  private Overlay second;
  private MetricType type = MetricType.EMPTY;
  private int row;
  private int rowEnd;
  private final PlainMessage nested = new PlainMessage(BUCKETS_COUNTS);

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
  void release() {
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
  void single(OtlpIndex index, MetricType type, byte[] bytes, int from, int to) {
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
    return fixed64(START_TIME_UNIX_NANO);
  }

  public long timeUnixNano() {
    return fixed64(TIME_UNIX_NANO);
  }

  /** {@code DataPointFlags}. */
  public int flags() {
    return (int) varint(flagsField());
  }

  // Number data points (gauge, sum).

  /** Whether a number data point holds {@code as_double} (last one on the wire wins). */
  public boolean isDouble() {
    return type.ordinal() <= MetricType.SUM.ordinal() && at(NUMBER_AS_DOUBLE) > at(NUMBER_AS_INT);
  }

  /** Whether a number data point holds {@code as_int}. */
  public boolean isInt() {
    return type.ordinal() <= MetricType.SUM.ordinal() && at(NUMBER_AS_INT) > at(NUMBER_AS_DOUBLE);
  }

  public double doubleValue() {
    return isDouble() ? double64(NUMBER_AS_DOUBLE) : 0;
  }

  public long intValue() {
    return isInt() ? fixed64(NUMBER_AS_INT) : 0;
  }

  // Histograms, exponential histograms, summaries.

  public long count() {
    return hasCountAndSum() ? fixed64(COUNT) : 0;
  }

  /**
   * Whether {@code sum} is set: optional for (exponential) histograms; a summary's sum is plain, so
   * there this says whether it is other than 0.
   */
  public boolean hasSum() {
    return hasCountAndSum() && has(SUM);
  }

  public double sum() {
    return hasCountAndSum() ? double64(SUM) : 0;
  }

  public boolean hasMin() {
    return minField() > 0 && has(minField());
  }

  public double min() {
    return minField() > 0 ? double64(minField()) : 0;
  }

  public boolean hasMax() {
    return minField() > 0 && has(minField() + 1);
  }

  public double max() {
    return minField() > 0 ? double64(minField() + 1) : 0;
  }

  // Histograms.

  public int bucketCountsCount() {
    return type == MetricType.HISTOGRAM ? fixed64Count(HISTOGRAM_BUCKET_COUNTS) : 0;
  }

  public long bucketCount(int index) {
    return type == MetricType.HISTOGRAM ? fixed64At(HISTOGRAM_BUCKET_COUNTS, index) : 0;
  }

  public int explicitBoundsCount() {
    return type == MetricType.HISTOGRAM ? fixed64Count(HISTOGRAM_EXPLICIT_BOUNDS) : 0;
  }

  public double explicitBound(int index) {
    return type == MetricType.HISTOGRAM
        ? Double.longBitsToDouble(fixed64At(HISTOGRAM_EXPLICIT_BOUNDS, index))
        : 0;
  }

  // Exponential histograms.

  public int scale() {
    return isExponential() ? ViewWire.zigzag32(varint(EXP_SCALE)) : 0;
  }

  public long zeroCount() {
    return isExponential() ? fixed64(EXP_ZERO_COUNT) : 0;
  }

  public double zeroThreshold() {
    return isExponential() ? double64(EXP_ZERO_THRESHOLD) : 0;
  }

  /** {@code positive.offset}. */
  public int positiveOffset() {
    return bucketsOffset(EXP_POSITIVE);
  }

  public int positiveBucketCountsCount() {
    return bucketsCount(EXP_POSITIVE);
  }

  public long positiveBucketCount(int index) {
    return bucketsAt(EXP_POSITIVE, index);
  }

  /** {@code negative.offset}. */
  public int negativeOffset() {
    return bucketsOffset(EXP_NEGATIVE);
  }

  public int negativeBucketCountsCount() {
    return bucketsCount(EXP_NEGATIVE);
  }

  public long negativeBucketCount(int index) {
    return bucketsAt(EXP_NEGATIVE, index);
  }

  // Summaries.

  public int quantileValuesCount() {
    return type == MetricType.SUMMARY ? messageCount(SUMMARY_QUANTILE_VALUES) : 0;
  }

  /** {@code quantile_values[index].quantile}. */
  public double quantile(int index) {
    return quantileField(index, QUANTILE);
  }

  /** {@code quantile_values[index].value}. */
  public double quantileValue(int index) {
    return quantileField(index, QUANTILE_VALUE);
  }

  private double quantileField(int index, int field) {
    int p = type == MetricType.SUMMARY ? messageAt(SUMMARY_QUANTILE_VALUES, index) : -1;
    if (p < 0) {
      return 0;
    }
    nested.wrapPayload(bytes, p);
    return nested.double64(field);
  }

  private int attributesField() {
    switch (type) {
      case HISTOGRAM:
        return HISTOGRAM_ATTRIBUTES;
      case EXPONENTIAL_HISTOGRAM:
        return EXP_ATTRIBUTES;
      default:
        return NUMBER_AND_SUMMARY_ATTRIBUTES;
    }
  }

  private int flagsField() {
    return type == MetricType.HISTOGRAM || type == MetricType.EXPONENTIAL_HISTOGRAM
        ? HISTOGRAMS_FLAGS
        : NUMBER_AND_SUMMARY_FLAGS;
  }

  /** The field number of {@code min} ({@code max} follows it), or 0 where there is none. */
  private int minField() {
    switch (type) {
      case HISTOGRAM:
        return HISTOGRAM_MIN;
      case EXPONENTIAL_HISTOGRAM:
        return EXP_MIN;
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
        ? ViewWire.zigzag32(nested.wrapField(this, field).varint(BUCKETS_OFFSET))
        : 0;
  }

  private int bucketsCount(int field) {
    if (!isExponential()) {
      return 0;
    }
    PlainMessage buckets = nested.wrapField(this, field);
    return buckets.varintCount(BUCKETS_COUNTS);
  }

  private long bucketsAt(int field, int index) {
    if (!isExponential()) {
      return 0;
    }
    return nested.wrapField(this, field).varintAt(BUCKETS_COUNTS, index);
  }
}
