package dev.sluice.pdata.otlp;

import dev.sluice.pdata.wire.ProtoWriter;

/**
 * A log record read in place. Handed to visitors by {@link BatchView}; valid only during that
 * visit.
 */
public final class LogRecordView extends ItemView {
  private static final int TIME_UNIX_NANO = 1;
  private static final int SEVERITY_NUMBER = 2;
  private static final int SEVERITY_TEXT = 3;
  private static final int BODY = 5;
  private static final int ATTRIBUTES = 6;
  private static final int DROPPED_ATTRIBUTES_COUNT = 7;
  private static final int FLAGS = 8;
  private static final int TRACE_ID = 9;
  private static final int SPAN_ID = 10;
  private static final int OBSERVED_TIME_UNIX_NANO = 11;
  private static final int EVENT_NAME = 12;

  private final TextView severityText = new TextView();
  private final TextView eventName = new TextView();
  private final AnyValueView body = new AnyValueView();

  LogRecordView() {
    super(EVENT_NAME);
  }

  @Override
  void release() {
    super.release();
    severityText.release();
    eventName.release();
    body.release();
  }

  public long timeUnixNano() {
    return fixed64(TIME_UNIX_NANO);
  }

  public long observedTimeUnixNano() {
    return fixed64(OBSERVED_TIME_UNIX_NANO);
  }

  /** {@code SeverityNumber} as its number (0 unspecified, 1-4 trace, ..., 21-24 fatal). */
  public int severityNumber() {
    return (int) varint(SEVERITY_NUMBER);
  }

  public TextView severityText() {
    return text(SEVERITY_TEXT, severityText);
  }

  /** The body; {@link ValueType#EMPTY} when the record has none. */
  public AnyValueView body() {
    int p = at(BODY);
    if (p < 0) {
      body.clear();
    } else {
      body.wrapPayload(bytes, p);
    }
    return body;
  }

  /** Points {@code cursor} at the record's attributes. */
  public AttributeCursor attributes(AttributeCursor cursor) {
    return attributes(ATTRIBUTES, cursor);
  }

  public int droppedAttributesCount() {
    return (int) varint(DROPPED_ATTRIBUTES_COUNT);
  }

  public int flags() {
    return fixed32(FLAGS);
  }

  /** Copies the trace ID into {@code destination[0..16)}; false (and zeros) when it is empty. */
  public boolean copyTraceId(byte[] destination) {
    return copyId(TRACE_ID, destination, SpanView.TRACE_ID_BYTES);
  }

  public long traceIdHigh() {
    return idLong(TRACE_ID, SpanView.TRACE_ID_BYTES, 0);
  }

  public long traceIdLow() {
    return idLong(TRACE_ID, SpanView.TRACE_ID_BYTES, Long.BYTES);
  }

  /** Copies the span ID into {@code destination[0..8)}; false (and zeros) when it is empty. */
  public boolean copySpanId(byte[] destination) {
    return copyId(SPAN_ID, destination, SpanView.SPAN_ID_BYTES);
  }

  public long spanIdLong() {
    return idLong(SPAN_ID, SpanView.SPAN_ID_BYTES, 0);
  }

  public TextView eventName() {
    return text(EVENT_NAME, eventName);
  }

  /** Appends the record's {@code LogRecord} message (without a tag or length) to {@code out}. */
  public void writeTo(ProtoWriter out) {
    out.writeBytes(bytes, start, end - start);
  }
}
