package dev.sluice.pdata.view;

import dev.sluice.pdata.internal.Hex;
import dev.sluice.pdata.internal.OtlpFields.Exemplar;
import dev.sluice.pdata.internal.RepeatedView;
import dev.sluice.pdata.internal.ViewWire;

/**
 * A cursor over a data point's exemplars ({@link DataPointView#exemplars}), reading the current one
 * in place. Made once by the caller; valid as long as the data point view that pointed it. Summary
 * points have no exemplars: the cursor over one is empty.
 *
 * <p>A trace or span ID counts as present when it has its full length (16 or 8 bytes) and is not
 * all zeros, as OTLP defines an empty ID; the hex and long forms of an absent ID are empty and 0.
 */
public final class ExemplarView extends RepeatedView {

  public ExemplarView() {
    super(Exemplar.FILTERED_ATTRIBUTES);
  }

  /** Points {@code cursor} at the exemplar's {@code filtered_attributes}. */
  public AttributeCursor filteredAttributes(AttributeCursor cursor) {
    return attributes(Exemplar.FILTERED_ATTRIBUTES, cursor);
  }

  public long timeUnixNano() {
    return fixed64(Exemplar.TIME_UNIX_NANO);
  }

  /** Whether the exemplar holds {@code as_double} (the last value on the wire wins). */
  public boolean isDouble() {
    return at(Exemplar.AS_DOUBLE) > at(Exemplar.AS_INT);
  }

  /** Whether the exemplar holds {@code as_int} (the last value on the wire wins). */
  public boolean isInt() {
    return at(Exemplar.AS_INT) > at(Exemplar.AS_DOUBLE);
  }

  /** {@code as_double}, or 0 when the exemplar holds an int or no value. */
  public double doubleValue() {
    return isDouble() ? double64(Exemplar.AS_DOUBLE) : 0;
  }

  /** {@code as_int}, or 0 when the exemplar holds a double or no value. */
  public long intValue() {
    return isInt() ? fixed64(Exemplar.AS_INT) : 0;
  }

  /** Whether the exemplar names the span it was recorded in (8 bytes, not all zeros). */
  public boolean hasSpanId() {
    return spanIdLong() != 0;
  }

  /** Whether the exemplar names the trace it was recorded in (16 bytes, not all zeros). */
  public boolean hasTraceId() {
    return (traceIdHigh() | traceIdLow()) != 0;
  }

  /** The span ID as a big-endian long (0 when absent). */
  public long spanIdLong() {
    return idLong(Exemplar.SPAN_ID, SpanView.SPAN_ID_BYTES, 0);
  }

  /** The trace ID's first eight bytes as a big-endian long (0 when absent). */
  public long traceIdHigh() {
    return idLong(Exemplar.TRACE_ID, SpanView.TRACE_ID_BYTES, 0);
  }

  /** The trace ID's last eight bytes as a big-endian long (0 when absent). */
  public long traceIdLow() {
    return idLong(Exemplar.TRACE_ID, SpanView.TRACE_ID_BYTES, Long.BYTES);
  }

  /** Appends the span ID as 16 lowercase hex digits to {@code out}; nothing when it is absent. */
  public void spanIdHex(StringBuilder out) {
    if (hasSpanId()) {
      Hex.append(bytes, idStart(Exemplar.SPAN_ID), SpanView.SPAN_ID_BYTES, out);
    }
  }

  /** Appends the trace ID as 32 lowercase hex digits to {@code out}; nothing when it is absent. */
  public void traceIdHex(StringBuilder out) {
    if (hasTraceId()) {
      Hex.append(bytes, idStart(Exemplar.TRACE_ID), SpanView.TRACE_ID_BYTES, out);
    }
  }

  private int idStart(int field) {
    return ViewWire.payloadStart(bytes, at(field));
  }
}
