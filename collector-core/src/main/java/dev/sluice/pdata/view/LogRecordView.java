package dev.sluice.pdata.view;

import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.ItemView;
import dev.sluice.pdata.internal.OtlpEnums.SeverityNumber;
import dev.sluice.pdata.internal.OtlpFields.LogRecord;
import dev.sluice.pdata.internal.ProtoWriter;

/**
 * A log record read in place. Handed to visitors by {@link BatchView}; valid only during that
 * visit.
 */
public final class LogRecordView extends ItemView {

  private final TextView severityText = new TextView();
  private final TextView eventName = new TextView();
  private final AnyValueView body = new AnyValueView();

  @Internal
  public LogRecordView() {
    super(LogRecord.EVENT_NAME);
  }

  @Override
  @Internal
  public void release() {
    super.release();
    severityText.release();
    eventName.release();
    body.release();
  }

  public long timeUnixNano() {
    return fixed64(LogRecord.TIME_UNIX_NANO);
  }

  public long observedTimeUnixNano() {
    return fixed64(LogRecord.OBSERVED_TIME_UNIX_NANO);
  }

  /** {@link #severityNumber()}: {@code SEVERITY_NUMBER_UNSPECIFIED}, none. */
  public static final int SEVERITY_UNSPECIFIED = SeverityNumber.UNSPECIFIED;

  /** {@link #severityNumber()}: {@code SEVERITY_NUMBER_TRACE}, the first of TRACE to TRACE4. */
  public static final int SEVERITY_TRACE = SeverityNumber.TRACE;

  /** {@link #severityNumber()}: {@code SEVERITY_NUMBER_DEBUG}, the first of DEBUG to DEBUG4. */
  public static final int SEVERITY_DEBUG = SeverityNumber.DEBUG;

  /** {@link #severityNumber()}: {@code SEVERITY_NUMBER_INFO}, the first of INFO to INFO4. */
  public static final int SEVERITY_INFO = SeverityNumber.INFO;

  /** {@link #severityNumber()}: {@code SEVERITY_NUMBER_WARN}, the first of WARN to WARN4. */
  public static final int SEVERITY_WARN = SeverityNumber.WARN;

  /** {@link #severityNumber()}: {@code SEVERITY_NUMBER_ERROR}, the first of ERROR to ERROR4. */
  public static final int SEVERITY_ERROR = SeverityNumber.ERROR;

  /** {@link #severityNumber()}: {@code SEVERITY_NUMBER_FATAL}, the first of FATAL to FATAL4. */
  public static final int SEVERITY_FATAL = SeverityNumber.FATAL;

  /** {@link #severityNumber()}: {@code SEVERITY_NUMBER_FATAL4}, the highest. */
  public static final int SEVERITY_FATAL4 = SeverityNumber.FATAL4;

  /**
   * {@code SeverityNumber} as its number (0 unspecified, 1-4 trace, ..., 21-24 fatal): see the
   * {@code SEVERITY_} constants.
   */
  public int severityNumber() {
    return (int) varint(LogRecord.SEVERITY_NUMBER);
  }

  public TextView severityText() {
    return text(LogRecord.SEVERITY_TEXT, severityText);
  }

  /** The body; {@link ValueType#EMPTY} when the record has none. */
  public AnyValueView body() {
    int p = at(LogRecord.BODY);
    if (p < 0) {
      body.clear();
    } else {
      body.wrapPayload(bytes, p);
    }
    return body;
  }

  /** Points {@code cursor} at the record's attributes. */
  public AttributeCursor attributes(AttributeCursor cursor) {
    return attributes(LogRecord.ATTRIBUTES, cursor);
  }

  public int droppedAttributesCount() {
    return (int) varint(LogRecord.DROPPED_ATTRIBUTES_COUNT);
  }

  public int flags() {
    return fixed32(LogRecord.FLAGS);
  }

  /** Copies the trace ID into {@code destination[0..16)}; false (and zeros) when it is empty. */
  public boolean copyTraceId(byte[] destination) {
    return copyId(LogRecord.TRACE_ID, destination, SpanView.TRACE_ID_BYTES);
  }

  public long traceIdHigh() {
    return idLong(LogRecord.TRACE_ID, SpanView.TRACE_ID_BYTES, 0);
  }

  public long traceIdLow() {
    return idLong(LogRecord.TRACE_ID, SpanView.TRACE_ID_BYTES, Long.BYTES);
  }

  /** Copies the span ID into {@code destination[0..8)}; false (and zeros) when it is empty. */
  public boolean copySpanId(byte[] destination) {
    return copyId(LogRecord.SPAN_ID, destination, SpanView.SPAN_ID_BYTES);
  }

  public long spanIdLong() {
    return idLong(LogRecord.SPAN_ID, SpanView.SPAN_ID_BYTES, 0);
  }

  public TextView eventName() {
    return text(LogRecord.EVENT_NAME, eventName);
  }

  /** Appends the record's {@code LogRecord} message (without a tag or length) to {@code out}. */
  @Internal
  public void writeTo(ProtoWriter out) {
    out.writeBytes(bytes, start, end - start);
  }
}
