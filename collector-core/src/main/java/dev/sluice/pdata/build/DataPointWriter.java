package dev.sluice.pdata.build;

import static dev.sluice.pdata.build.Fields.SPAN_ID_BYTES;
import static dev.sluice.pdata.build.Fields.TRACE_ID_BYTES;

import dev.sluice.pdata.internal.OtlpFields.Buckets;
import dev.sluice.pdata.internal.OtlpFields.Exemplar;
import dev.sluice.pdata.internal.OtlpFields.ExponentialHistogramDataPoint;
import dev.sluice.pdata.internal.OtlpFields.HistogramDataPoint;
import dev.sluice.pdata.internal.OtlpFields.MetricData;
import dev.sluice.pdata.internal.OtlpFields.NumberDataPoint;
import dev.sluice.pdata.internal.OtlpFields.SummaryDataPoint;
import dev.sluice.pdata.internal.OtlpFields.ValueAtQuantile;
import dev.sluice.pdata.internal.ProtoWriter;
import java.util.Objects;

/**
 * The data point begun last, of the metric begun last ({@link MetricsBuilder.MetricWriter}): a
 * number, histogram, exponential histogram or summary data point, as the metric's kind says. The
 * fields all kinds share are set the same way on each; a field of another kind of point throws
 * {@link IllegalStateException} (a count on a number data point, buckets on a summary).
 */
public final class DataPointWriter {
  /** The kinds of data point, with the numbers of the fields they share under different numbers. */
  enum Kind {
    NUMBER("number", NumberDataPoint.ATTRIBUTES, NumberDataPoint.EXEMPLARS),
    HISTOGRAM("histogram", HistogramDataPoint.ATTRIBUTES, HistogramDataPoint.EXEMPLARS),
    EXPONENTIAL_HISTOGRAM(
        "exponential histogram",
        ExponentialHistogramDataPoint.ATTRIBUTES,
        ExponentialHistogramDataPoint.EXEMPLARS),
    SUMMARY("summary", SummaryDataPoint.ATTRIBUTES, 0);

    final String pointName;
    final int attributesField;
    final int exemplarsField;

    Kind(String pointName, int attributesField, int exemplarsField) {
      this.pointName = pointName;
      this.attributesField = attributesField;
      this.exemplarsField = exemplarsField;
    }
  }

  private static final int NO_VALUE = 0;
  private static final int DOUBLE_VALUE = 1;
  private static final int INT_VALUE = 2;

  private Kind kind;
  private final ValueWriter attributes = new ValueWriter("data point", "attributes");
  private long startTimeUnixNano;
  private long timeUnixNano;
  private int flags;
  private int valueType;
  private double doubleValue;
  private long intValue;
  private long count;
  private boolean hasSum;
  private double sum;
  private boolean hasMin;
  private double min;
  private boolean hasMax;
  private double max;
  private final ProtoWriter buckets = new ProtoWriter(64);
  private int scale;
  private long zeroCount;
  private double zeroThreshold;
  private final ProtoWriter positive = new ProtoWriter(64);
  private final ProtoWriter negative = new ProtoWriter(64);
  private final ProtoWriter quantiles = new ProtoWriter(64);
  private final ProtoWriter exemplars = new ProtoWriter(64);
  private final ExemplarWriter exemplar = new ExemplarWriter();
  private boolean open;

  DataPointWriter() {}

  public ValueWriter attributes() {
    checkOpen();
    return attributes;
  }

  public DataPointWriter startTimeUnixNano(long nanos) {
    checkOpen();
    startTimeUnixNano = nanos;
    return this;
  }

  public DataPointWriter timeUnixNano(long nanos) {
    checkOpen();
    timeUnixNano = nanos;
    return this;
  }

  /** {@code DataPointFlags}; unsigned, as protobuf-java takes a {@code uint32}. */
  public DataPointWriter flags(int flags) {
    checkOpen();
    this.flags = flags;
    return this;
  }

  /** A number data point's value as a double, in place of any value set before. */
  public DataPointWriter doubleValue(double value) {
    require(kind == Kind.NUMBER, "doubleValue");
    valueType = DOUBLE_VALUE;
    doubleValue = value;
    return this;
  }

  /** A number data point's value as a long, in place of any value set before. */
  public DataPointWriter intValue(long value) {
    require(kind == Kind.NUMBER, "intValue");
    valueType = INT_VALUE;
    intValue = value;
    return this;
  }

  /** How many values the histogram or summary counts (unsigned). */
  public DataPointWriter count(long count) {
    require(kind != Kind.NUMBER, "count");
    this.count = count;
    return this;
  }

  /** The sum of the values a histogram or summary counts. */
  public DataPointWriter sum(double sum) {
    require(kind != Kind.NUMBER, "sum");
    this.sum = sum;
    hasSum = true;
    return this;
  }

  public DataPointWriter min(double min) {
    require(kind == Kind.HISTOGRAM || kind == Kind.EXPONENTIAL_HISTOGRAM, "min");
    this.min = min;
    hasMin = true;
    return this;
  }

  public DataPointWriter max(double max) {
    require(kind == Kind.HISTOGRAM || kind == Kind.EXPONENTIAL_HISTOGRAM, "max");
    this.max = max;
    hasMax = true;
    return this;
  }

  /**
   * A histogram's buckets: the upper bounds between them, and the count in each, one more than
   * there are bounds (or neither). The arrays are copied.
   */
  public DataPointWriter buckets(double[] explicitBounds, long[] bucketCounts) {
    require(kind == Kind.HISTOGRAM, "buckets");
    int bounds = Objects.requireNonNull(explicitBounds, "explicitBounds").length;
    int counts = Objects.requireNonNull(bucketCounts, "bucketCounts").length;
    if (counts != bounds + 1 && (bounds > 0 || counts > 0)) {
      throw new IllegalArgumentException(
          "a histogram has one bucket count more than it has explicit bounds, or neither: "
              + bounds
              + " bounds and "
              + counts
              + " counts");
    }
    buckets.reset();
    Fields.packedFixed64(buckets, HistogramDataPoint.BUCKET_COUNTS, bucketCounts);
    Fields.packedDouble(buckets, HistogramDataPoint.EXPLICIT_BOUNDS, explicitBounds);
    return this;
  }

  /** An exponential histogram's scale: the buckets' base is {@code 2^(2^-scale)}. */
  public DataPointWriter scale(int scale) {
    require(kind == Kind.EXPONENTIAL_HISTOGRAM, "scale");
    this.scale = scale;
    return this;
  }

  /** An exponential histogram's count of values in the zero bucket (unsigned). */
  public DataPointWriter zeroCount(long count) {
    require(kind == Kind.EXPONENTIAL_HISTOGRAM, "zeroCount");
    zeroCount = count;
    return this;
  }

  /** An exponential histogram's zero bucket's width. */
  public DataPointWriter zeroThreshold(double threshold) {
    require(kind == Kind.EXPONENTIAL_HISTOGRAM, "zeroThreshold");
    zeroThreshold = threshold;
    return this;
  }

  /**
   * An exponential histogram's positive buckets: the index of the first, and the counts (unsigned;
   * the array is copied).
   */
  public DataPointWriter positive(int offset, long[] bucketCounts) {
    require(kind == Kind.EXPONENTIAL_HISTOGRAM, "positive");
    buckets(positive, ExponentialHistogramDataPoint.POSITIVE, offset, bucketCounts);
    return this;
  }

  /** An exponential histogram's negative buckets, as {@link #positive}. */
  public DataPointWriter negative(int offset, long[] bucketCounts) {
    require(kind == Kind.EXPONENTIAL_HISTOGRAM, "negative");
    buckets(negative, ExponentialHistogramDataPoint.NEGATIVE, offset, bucketCounts);
    return this;
  }

  /** Adds one of a summary's quantiles: the quantile (0 to 1) and the value at it. */
  public DataPointWriter quantile(double quantile, double value) {
    require(kind == Kind.SUMMARY, "quantile");
    int mark = quantiles.beginLengthDelimited(SummaryDataPoint.QUANTILE_VALUES);
    Fields.doubleField(quantiles, ValueAtQuantile.QUANTILE, quantile);
    Fields.doubleField(quantiles, ValueAtQuantile.VALUE, value);
    quantiles.endLengthDelimited(mark);
    return this;
  }

  /** Begins an exemplar of this data point (not of a summary's), ending the exemplar before. */
  public ExemplarWriter exemplar() {
    require(kind != Kind.SUMMARY, "exemplar");
    exemplar.end(exemplars, kind.exemplarsField);
    exemplar.start();
    return exemplar;
  }

  private static void buckets(ProtoWriter out, int field, int offset, long[] bucketCounts) {
    Objects.requireNonNull(bucketCounts, "bucketCounts");
    out.reset();
    int mark = out.beginLengthDelimited(field);
    Fields.sint32(out, Buckets.OFFSET, offset);
    Fields.packedUint64(out, Buckets.BUCKET_COUNTS, bucketCounts);
    out.endLengthDelimited(mark);
  }

  void start(Kind kind) {
    this.kind = kind;
    attributes.start(kind.attributesField);
    startTimeUnixNano = 0;
    timeUnixNano = 0;
    flags = 0;
    valueType = NO_VALUE;
    count = 0;
    hasSum = false;
    sum = 0;
    hasMin = false;
    hasMax = false;
    buckets.reset();
    scale = 0;
    zeroCount = 0;
    zeroThreshold = 0;
    positive.reset();
    negative.reset();
    quantiles.reset();
    exemplars.reset();
    open = true;
  }

  /** Writes the data point, when one is open, as a {@code data_points} field into {@code out}. */
  void end(ProtoWriter out) {
    if (!open) {
      return;
    }
    if (kind != Kind.SUMMARY) {
      exemplar.end(exemplars, kind.exemplarsField);
    }
    attributes.checkClosed();
    int mark = out.beginLengthDelimited(MetricData.DATA_POINTS);
    switch (kind) {
      case NUMBER -> writeNumber(out);
      case HISTOGRAM -> writeHistogram(out);
      case EXPONENTIAL_HISTOGRAM -> writeExponentialHistogram(out);
      case SUMMARY -> writeSummary(out);
    }
    out.endLengthDelimited(mark);
    close();
  }

  // Each kind's fields in field-number order.

  private void writeNumber(ProtoWriter out) {
    Fields.fixed64(out, NumberDataPoint.START_TIME_UNIX_NANO, startTimeUnixNano);
    Fields.fixed64(out, NumberDataPoint.TIME_UNIX_NANO, timeUnixNano);
    if (valueType == DOUBLE_VALUE) {
      Fields.doubleAlways(out, NumberDataPoint.AS_DOUBLE, doubleValue);
    }
    Fields.copy(out, exemplars);
    if (valueType == INT_VALUE) {
      Fields.fixed64Always(out, NumberDataPoint.AS_INT, intValue);
    }
    Fields.copy(out, attributes.bytes());
    Fields.uint32(out, NumberDataPoint.FLAGS, flags);
  }

  private void writeHistogram(ProtoWriter out) {
    Fields.fixed64(out, HistogramDataPoint.START_TIME_UNIX_NANO, startTimeUnixNano);
    Fields.fixed64(out, HistogramDataPoint.TIME_UNIX_NANO, timeUnixNano);
    Fields.fixed64(out, HistogramDataPoint.COUNT, count);
    if (hasSum) {
      Fields.doubleAlways(out, HistogramDataPoint.SUM, sum);
    }
    Fields.copy(out, buckets); // bucket_counts, explicit_bounds
    Fields.copy(out, exemplars);
    Fields.copy(out, attributes.bytes());
    Fields.uint32(out, HistogramDataPoint.FLAGS, flags);
    if (hasMin) {
      Fields.doubleAlways(out, HistogramDataPoint.MIN, min);
    }
    if (hasMax) {
      Fields.doubleAlways(out, HistogramDataPoint.MAX, max);
    }
  }

  private void writeExponentialHistogram(ProtoWriter out) {
    Fields.copy(out, attributes.bytes());
    Fields.fixed64(out, ExponentialHistogramDataPoint.START_TIME_UNIX_NANO, startTimeUnixNano);
    Fields.fixed64(out, ExponentialHistogramDataPoint.TIME_UNIX_NANO, timeUnixNano);
    Fields.fixed64(out, ExponentialHistogramDataPoint.COUNT, count);
    if (hasSum) {
      Fields.doubleAlways(out, ExponentialHistogramDataPoint.SUM, sum);
    }
    Fields.sint32(out, ExponentialHistogramDataPoint.SCALE, scale);
    Fields.fixed64(out, ExponentialHistogramDataPoint.ZERO_COUNT, zeroCount);
    Fields.copy(out, positive);
    Fields.copy(out, negative);
    Fields.uint32(out, ExponentialHistogramDataPoint.FLAGS, flags);
    Fields.copy(out, exemplars);
    if (hasMin) {
      Fields.doubleAlways(out, ExponentialHistogramDataPoint.MIN, min);
    }
    if (hasMax) {
      Fields.doubleAlways(out, ExponentialHistogramDataPoint.MAX, max);
    }
    Fields.doubleField(out, ExponentialHistogramDataPoint.ZERO_THRESHOLD, zeroThreshold);
  }

  private void writeSummary(ProtoWriter out) {
    Fields.fixed64(out, SummaryDataPoint.START_TIME_UNIX_NANO, startTimeUnixNano);
    Fields.fixed64(out, SummaryDataPoint.TIME_UNIX_NANO, timeUnixNano);
    Fields.fixed64(out, SummaryDataPoint.COUNT, count);
    Fields.doubleField(out, SummaryDataPoint.SUM, sum); // not optional in a summary
    Fields.copy(out, quantiles);
    Fields.copy(out, attributes.bytes());
    Fields.uint32(out, SummaryDataPoint.FLAGS, flags);
  }

  void close() {
    exemplar.close();
    attributes.close();
    open = false;
  }

  private void require(boolean fieldOfThisKind, String field) {
    checkOpen();
    if (!fieldOfThisKind) {
      throw new IllegalStateException(
          field + " is not a field of " + kind.pointName + " data points");
    }
  }

  private void checkOpen() {
    if (!open) {
      throw new IllegalStateException(
          "no data point is open: call numberPoint(), histogramPoint(),"
              + " exponentialHistogramPoint() or summaryPoint() on a metric first");
    }
  }

  /** The exemplar begun last, of the data point begun last. */
  public final class ExemplarWriter {
    private final ValueWriter filteredAttributes =
        new ValueWriter("exemplar", "filtered attributes");
    private long timeUnixNano;
    private int valueType;
    private double doubleValue;
    private long intValue;
    private final byte[] spanId = new byte[SPAN_ID_BYTES];
    private boolean hasSpanId;
    private final byte[] traceId = new byte[TRACE_ID_BYTES];
    private boolean hasTraceId;
    private boolean open;

    ExemplarWriter() {}

    /** The attributes of the measurement that the data point's aggregation left out. */
    public ValueWriter filteredAttributes() {
      checkOpen();
      return filteredAttributes;
    }

    public ExemplarWriter timeUnixNano(long nanos) {
      checkOpen();
      timeUnixNano = nanos;
      return this;
    }

    /** The measurement as a double, in place of any value set before. */
    public ExemplarWriter doubleValue(double value) {
      checkOpen();
      valueType = DOUBLE_VALUE;
      doubleValue = value;
      return this;
    }

    /** The measurement as a long, in place of any value set before. */
    public ExemplarWriter intValue(long value) {
      checkOpen();
      valueType = INT_VALUE;
      intValue = value;
      return this;
    }

    /** 8 bytes, copied. */
    public ExemplarWriter spanId(byte[] id) {
      checkOpen();
      Fields.copyId(id, spanId, "span ID");
      hasSpanId = true;
      return this;
    }

    /** 16 bytes, copied. */
    public ExemplarWriter traceId(byte[] id) {
      checkOpen();
      Fields.copyId(id, traceId, "trace ID");
      hasTraceId = true;
      return this;
    }

    void start() {
      filteredAttributes.start(Exemplar.FILTERED_ATTRIBUTES);
      timeUnixNano = 0;
      valueType = NO_VALUE;
      hasSpanId = false;
      hasTraceId = false;
      open = true;
    }

    /** Writes the exemplar, when one is open, into {@code out} as field {@code field}. */
    void end(ProtoWriter out, int field) {
      if (!open) {
        return;
      }
      filteredAttributes.checkClosed();
      int mark = out.beginLengthDelimited(field);
      Fields.fixed64(out, Exemplar.TIME_UNIX_NANO, timeUnixNano);
      if (valueType == DOUBLE_VALUE) {
        Fields.doubleAlways(out, Exemplar.AS_DOUBLE, doubleValue);
      }
      if (hasSpanId) {
        Fields.bytes(out, Exemplar.SPAN_ID, spanId, SPAN_ID_BYTES);
      }
      if (hasTraceId) {
        Fields.bytes(out, Exemplar.TRACE_ID, traceId, TRACE_ID_BYTES);
      }
      if (valueType == INT_VALUE) {
        Fields.fixed64Always(out, Exemplar.AS_INT, intValue);
      }
      Fields.copy(out, filteredAttributes.bytes());
      out.endLengthDelimited(mark);
      close();
    }

    void close() {
      filteredAttributes.close();
      open = false;
    }

    private void checkOpen() {
      if (!open) {
        throw new IllegalStateException(
            "no exemplar is open: call exemplar() on a data point first");
      }
    }
  }
}
