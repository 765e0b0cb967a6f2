package dev.sluice.pdata.edit;

import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.ItemEdits;
import dev.sluice.pdata.internal.OtlpFields.DataPoint;
import dev.sluice.pdata.internal.OtlpFields.ExponentialHistogramDataPoint;
import dev.sluice.pdata.internal.OtlpFields.HistogramDataPoint;
import dev.sluice.pdata.internal.OtlpFields.Metric;
import dev.sluice.pdata.internal.OtlpFields.NumberDataPoint;
import dev.sluice.pdata.internal.OtlpFields.SummaryDataPoint;
import dev.sluice.pdata.view.MetricType;

/**
 * Changes the fields of the data point a {@link Batch#visit} is at, without decoding it: {@link
 * BatchItem#editDataPoint()} hands it out. Attributes, times and flags of every kind of point, and
 * the value of a number point (a gauge's or a sum's). Calls are checked at once and the changes
 * written when the visitor's call ends, into one replacement, as for spans (see {@link
 * SpanEditor}); a point whose changes leave its bytes as they were is not replaced. Valid only
 * during the visitor's call that got it; allocation-free once warm.
 */
public final class DataPointEditor {
  private static final String EDITOR = "DataPointEditor";
  private static final long UINT32_MASK = 0xFFFF_FFFFL;

  private final ItemEdits edits;
  private int metricDataField;

  @Internal
  public DataPointEditor(ItemEdits edits) {
    this.edits = edits;
  }

  /** The field number of the point's metric's data: which message the point is. */
  @Internal
  public void bind(int metricDataField) {
    this.metricDataField = metricDataField;
  }

  private ItemEdits edits() {
    edits.check(EDITOR);
    return edits;
  }

  private int flagsField() {
    return switch (metricDataField) {
      case Metric.HISTOGRAM -> HistogramDataPoint.FLAGS;
      case Metric.EXPONENTIAL_HISTOGRAM -> ExponentialHistogramDataPoint.FLAGS;
      case Metric.SUMMARY -> SummaryDataPoint.FLAGS;
      default -> NumberDataPoint.FLAGS;
    };
  }

  public DataPointEditor setStartTimeUnixNano(long startTimeUnixNano) {
    edits().setFixed64(DataPoint.START_TIME_UNIX_NANO, startTimeUnixNano);
    return this;
  }

  public DataPointEditor setTimeUnixNano(long timeUnixNano) {
    edits().setFixed64(DataPoint.TIME_UNIX_NANO, timeUnixNano);
    return this;
  }

  /** {@code flags} (a uint32: every bit pattern of the int): see {@code DataPointFlags}. */
  public DataPointEditor setFlags(int flags) {
    edits().setVarint(flagsField(), flags & UINT32_MASK);
    return this;
  }

  /** The value of a number point as a double ({@code as_double}; {@code as_int} goes). */
  public DataPointEditor setDoubleValue(double value) {
    ItemEdits e = numberPoint();
    e.clear(NumberDataPoint.AS_INT);
    e.setOneofFixed64(NumberDataPoint.AS_DOUBLE, Double.doubleToRawLongBits(value));
    return this;
  }

  /** The value of a number point as an integer ({@code as_int}; {@code as_double} goes). */
  public DataPointEditor setIntValue(long value) {
    ItemEdits e = numberPoint();
    e.clear(NumberDataPoint.AS_DOUBLE);
    e.setOneofFixed64(NumberDataPoint.AS_INT, value);
    return this;
  }

  private ItemEdits numberPoint() {
    ItemEdits e = edits();
    if (metricDataField != Metric.GAUGE && metricDataField != Metric.SUM) {
      throw new IllegalStateException(
          "only a number data point (a gauge's or a sum's) has a single value; this one is a "
              + MetricType.ofField(metricDataField)
              + " point");
    }
    return e;
  }

  public DataPointEditor putAttribute(String key, String value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.stringValue(value));
    return this;
  }

  /**
   * A string attribute given as its UTF-8 bytes {@code utf8[offset, offset + length)}, for a writer
   * that builds the text in a reused buffer; checked to be UTF-8.
   */
  public DataPointEditor putStringAttribute(String key, byte[] utf8, int offset, int length) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.stringValue(utf8, offset, length));
    return this;
  }

  public DataPointEditor putAttribute(String key, boolean value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.boolValue(value));
    return this;
  }

  public DataPointEditor putAttribute(String key, long value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.intValue(value));
    return this;
  }

  public DataPointEditor putAttribute(String key, double value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.doubleValue(value));
    return this;
  }

  /** A {@code bytes_value} attribute. */
  public DataPointEditor putAttribute(String key, byte[] value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.bytesValue(value));
    return this;
  }

  /**
   * Applies {@code actions} to the attributes, in order, after the changes made so far in this call
   * and before those made after. Actions that are the call's first change are written at once (the
   * later changes then apply to their result); otherwise they are written with the call's other
   * changes, in the same pass.
   */
  public DataPointEditor apply(AttributeActions actions) {
    edits.applyActions(EDITOR, actions);
    return this;
  }

  /** Removes every attribute with the key. */
  public DataPointEditor removeAttribute(String key) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.removeAttribute(e.key(key));
    return this;
  }
}
