package dev.sluice.pdata.view;

import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.MessageView;
import dev.sluice.pdata.internal.OtlpEnums.AggregationTemporality;
import dev.sluice.pdata.internal.OtlpFields.Metric;
import dev.sluice.pdata.internal.OtlpFields.MetricData;
import dev.sluice.pdata.internal.OtlpFields.Sum;
import dev.sluice.pdata.internal.Overlay;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.ViewWire;
import dev.sluice.pdata.internal.WireType;

/**
 * A metric read in place, as far as a batch holds it: a slice may cover only some of a metric's
 * data points, and then {@link #dataPointCount()}, {@link #dataPoints} and {@link #writeTo} see
 * only those. Handed to visitors by {@link BatchView}; valid only during that visit.
 */
public final class MetricView extends MessageView {
  private final TextView name = new TextView();
  private final TextView description = new TextView();
  private final TextView unit = new TextView();
  private OtlpIndex index;
  private int metric;
  private int pointFrom;
  private int pointTo;
  // Replacements, looked up first in `first`, then in `second` (either may be null); `header` is
  // the one holding a replaced header, or null when the header is the request's.
  private Overlay first;
  private Overlay second;
  private Overlay header;

  @Internal
  public MetricView() {
    super(Metric.METADATA);
  }

  /**
   * Wraps data points {@code [pointFrom, pointTo)} of metric {@code metric} as the batch writes
   * them: a replaced header or point is read from {@code first}, or else from {@code second}.
   */
  @Internal
  public void wrap(
      OtlpIndex index, int metric, int pointFrom, int pointTo, Overlay first, Overlay second) {
    if (this.index != index) {
      this.index = index;
    }
    this.metric = metric;
    this.pointFrom = pointFrom;
    this.pointTo = pointTo;
    if (this.first != first) {
      this.first = first;
    }
    if (this.second != second) {
      this.second = second;
    }
    Overlay replaced =
        first != null && first.metricOffset(metric) >= 0
            ? first
            : second != null && second.metricOffset(metric) >= 0 ? second : null;
    if (header != replaced) {
      header = replaced;
    }
    if (replaced != null) {
      int from = replaced.metricOffset(metric);
      wrapRegion(replaced.bytes(), from, from + replaced.metricLength(metric));
    } else {
      byte[] source = index.source();
      wrapPayload(source, ViewWire.skipVarint(source, index.itemStart(metric)));
    }
  }

  @Override
  @Internal
  public void release() {
    super.release();
    index = null;
    first = null;
    second = null;
    header = null;
    name.release();
    description.release();
    unit.release();
  }

  /** The request the view reads, the metric's row and the data points covered: for edits. */
  OtlpIndex index() {
    return index;
  }

  int item() {
    return metric;
  }

  int pointFrom() {
    return pointFrom;
  }

  int pointTo() {
    return pointTo;
  }

  public TextView name() {
    return text(Metric.NAME, name);
  }

  public boolean nameEquals(CharSequence text) {
    return name().contentEquals(text);
  }

  public boolean nameEquals(byte[] utf8) {
    return name().contentEquals(utf8);
  }

  public TextView description() {
    return text(Metric.DESCRIPTION, description);
  }

  public TextView unit() {
    return text(Metric.UNIT, unit);
  }

  public MetricType type() {
    return MetricType.ofField(index.metric(metric, OtlpIndex.M_DATA_FIELD));
  }

  /** {@link #aggregationTemporality()}: {@code AGGREGATION_TEMPORALITY_DELTA}. */
  public static final int AGGREGATION_TEMPORALITY_DELTA = AggregationTemporality.DELTA;

  /** {@link #aggregationTemporality()}: {@code AGGREGATION_TEMPORALITY_CUMULATIVE}. */
  public static final int AGGREGATION_TEMPORALITY_CUMULATIVE = AggregationTemporality.CUMULATIVE;

  /** {@code AggregationTemporality} of a sum, histogram or exponential histogram (0 otherwise). */
  public int aggregationTemporality() {
    MetricType type = type();
    if (type != MetricType.SUM
        && type != MetricType.HISTOGRAM
        && type != MetricType.EXPONENTIAL_HISTOGRAM) {
      return 0;
    }
    return (int) dataHeaderVarint(MetricData.AGGREGATION_TEMPORALITY);
  }

  /** {@code Sum.is_monotonic} (false for other types). */
  public boolean isMonotonic() {
    return type() == MetricType.SUM && dataHeaderVarint(Sum.IS_MONOTONIC) != 0;
  }

  /** Points {@code cursor} at the metric's {@code metadata}. */
  public AttributeCursor metadata(AttributeCursor cursor) {
    return attributes(Metric.METADATA, cursor);
  }

  /** Data points this view covers (all of the metric's, unless a slice cut it). */
  public int dataPointCount() {
    if (!dropsAny()) {
      return pointTo - pointFrom;
    }
    int firstRow = index.metric(metric, OtlpIndex.M_DP_FIRST);
    int count = 0;
    for (int p = firstRow + pointFrom; p < firstRow + pointTo; p++) {
      count += dropped(p) ? 0 : 1;
    }
    return count;
  }

  /**
   * Whether a slice boundary cut this metric or an edit dropped some of its points, so the view
   * covers only some of its data points.
   */
  public boolean isPartial() {
    return pointFrom > 0
        || pointTo < index.dataPointCount(metric)
        || dataPointCount() < pointTo - pointFrom;
  }

  private boolean dropsAny() {
    return (first != null && first.dropsAny()) || (second != null && second.dropsAny());
  }

  /** Whether an edit dropped data point row {@code row}: it is not shown. */
  private boolean dropped(int row) {
    return (first != null && first.unitDropped(row)) || (second != null && second.unitDropped(row));
  }

  /** Points {@code points} before the first covered data point; {@code next()} walks them. */
  public DataPointView dataPoints(DataPointView points) {
    int firstRow = index.metric(metric, OtlpIndex.M_DP_FIRST);
    points.point(index, type(), firstRow + pointFrom, firstRow + pointTo, first, second);
    return points;
  }

  /** Whether a header or a point this view covers reads replaced bytes. */
  private boolean touched() {
    return (first != null && first.metricTouched(metric))
        || (second != null && second.metricTouched(metric));
  }

  /** The overlay holding a replacement of data point row {@code row}, or null. */
  private Overlay pointOverlay(int row) {
    if (first != null && first.unitOffset(row) >= 0) {
      return first;
    }
    return second != null && second.unitOffset(row) >= 0 ? second : null;
  }

  /**
   * Appends the metric's {@code Metric} message (without a tag or length) to {@code out}: its own
   * bytes when it is whole, otherwise its headers around the covered data points, as the marshaler
   * writes a cut metric.
   */
  @Internal
  public void writeTo(ProtoWriter out) {
    if (!isPartial() && !touched()) {
      out.writeBytes(bytes, start, end - start);
      return;
    }
    int dataField = index.metric(metric, OtlpIndex.M_DATA_FIELD);
    int firstRow = index.metric(metric, OtlpIndex.M_DP_FIRST);
    byte[] source = index.source();
    int pointBytes = 0;
    for (int p = firstRow + pointFrom; p < firstRow + pointTo; p++) {
      if (dropped(p)) {
        continue;
      }
      Overlay replaced = pointOverlay(p);
      pointBytes +=
          replaced != null
              ? replaced.unitLength(p)
              : index.dataPointEnd(p) - index.dataPointStart(p);
    }
    if (header != null) {
      int dataHeaderFrom = header.dataHeaderOffset(metric);
      int dataHeaderLength = header.dataHeaderLength(metric);
      out.writeBytes(header.bytes(), header.metricOffset(metric), header.metricHeadLength(metric));
      out.writeLengthDelimitedHeader(dataField, dataHeaderLength + pointBytes);
      out.writeBytes(header.bytes(), dataHeaderFrom, dataHeaderLength);
      writePoints(out, firstRow, source);
      return;
    }
    int dataSize = index.metric(metric, OtlpIndex.M_DATA_HEADER_BYTES) + pointBytes;
    int metricSegFirst = index.metric(metric, OtlpIndex.M_SEG_FIRST);
    int metricSegCount = index.metric(metric, OtlpIndex.M_SEG_COUNT);
    int dataSegFirst = index.metric(metric, OtlpIndex.M_DATA_SEG_FIRST);
    int dataSegCount = index.metric(metric, OtlpIndex.M_DATA_SEG_COUNT);
    writeSegments(out, source, metricSegFirst, metricSegCount, 0, dataField);
    out.writeLengthDelimitedHeader(dataField, dataSize);
    writeSegments(out, source, dataSegFirst, dataSegCount, 0, MetricData.DATA_POINTS);
    writePoints(out, firstRow, source);
    writeSegments(
        out, source, dataSegFirst, dataSegCount, MetricData.DATA_POINTS, Integer.MAX_VALUE);
    writeSegments(out, source, metricSegFirst, metricSegCount, dataField, Integer.MAX_VALUE);
  }

  private void writePoints(ProtoWriter out, int firstRow, byte[] source) {
    for (int p = firstRow + pointFrom; p < firstRow + pointTo; p++) {
      if (dropped(p)) {
        continue;
      }
      Overlay replaced = pointOverlay(p);
      if (replaced != null) {
        out.writeBytes(replaced.bytes(), replaced.unitOffset(p), replaced.unitLength(p));
      } else {
        out.writeBytes(
            source, index.dataPointStart(p), index.dataPointEnd(p) - index.dataPointStart(p));
      }
    }
  }

  private void writeSegments(
      ProtoWriter out, byte[] source, int first, int count, int above, int below) {
    for (int s = first; s < first + count; s++) {
      int field = index.segField(s);
      if (field > above && field < below) {
        out.writeBytes(source, index.segOffset(s), index.segLength(s));
      }
    }
  }

  private long dataHeaderVarint(int field) {
    int tag = WireType.tag(field, WireType.VARINT);
    long value = 0;
    if (header != null) {
      byte[] stored = header.bytes();
      int p = header.dataHeaderOffset(metric);
      int stop = p + header.dataHeaderLength(metric);
      while (p < stop) {
        int found = (int) ViewWire.varint(stored, p);
        int valueAt = ViewWire.skipVarint(stored, p);
        if (found == tag) {
          value = ViewWire.varint(stored, valueAt);
        }
        p = ViewWire.skipValue(stored, valueAt, found);
      }
      return value;
    }
    byte[] source = index.source();
    int first = index.metric(metric, OtlpIndex.M_DATA_SEG_FIRST);
    for (int s = first; s < first + index.metric(metric, OtlpIndex.M_DATA_SEG_COUNT); s++) {
      if (index.segField(s) == field && ViewWire.varint(source, index.segOffset(s)) == tag) {
        value = ViewWire.varint(source, ViewWire.skipVarint(source, index.segOffset(s)));
      }
    }
    return value;
  }
}
