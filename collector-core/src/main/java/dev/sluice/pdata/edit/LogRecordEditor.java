package dev.sluice.pdata.edit;

import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.ItemEdits;
import dev.sluice.pdata.internal.OtlpEnums.SeverityNumber;
import dev.sluice.pdata.internal.OtlpFields.LogRecord;
import dev.sluice.pdata.view.SpanView;

/**
 * Changes the fields of the log record a {@link Batch#visit} is at, without decoding it: {@link
 * BatchItem#editLogRecord()} hands it out. Calls are checked at once and the changes written when
 * the visitor's call ends, into one replacement, as for spans (see {@link SpanEditor}); a record
 * whose changes leave its bytes as they were is not replaced. Valid only during the visitor's call
 * that got it; allocation-free once warm.
 */
public final class LogRecordEditor {
  private static final String EDITOR = "LogRecordEditor";

  private final ItemEdits edits;

  @Internal
  public LogRecordEditor(ItemEdits edits) {
    this.edits = edits;
  }

  private ItemEdits edits() {
    edits.check(EDITOR);
    return edits;
  }

  public LogRecordEditor setTimeUnixNano(long timeUnixNano) {
    edits().setFixed64(LogRecord.TIME_UNIX_NANO, timeUnixNano);
    return this;
  }

  public LogRecordEditor setObservedTimeUnixNano(long observedTimeUnixNano) {
    edits().setFixed64(LogRecord.OBSERVED_TIME_UNIX_NANO, observedTimeUnixNano);
    return this;
  }

  /** A {@link SeverityNumber} value. */
  public LogRecordEditor setSeverityNumber(int severityNumber) {
    if (severityNumber < SeverityNumber.UNSPECIFIED || severityNumber > SeverityNumber.FATAL4) {
      throw new IllegalArgumentException(
          "severity number "
              + severityNumber
              + " is not a SeverityNumber (0 to "
              + SeverityNumber.FATAL4
              + ")");
    }
    edits().setVarint(LogRecord.SEVERITY_NUMBER, severityNumber);
    return this;
  }

  public LogRecordEditor setSeverityText(String severityText) {
    edits().setString(LogRecord.SEVERITY_TEXT, severityText, "a severity text");
    return this;
  }

  /** A string body (an empty string is a body too). */
  public LogRecordEditor setBody(String body) {
    ItemEdits e = edits();
    e.setAnyValue(LogRecord.BODY, e.stringValue(body));
    return this;
  }

  public LogRecordEditor setBody(boolean body) {
    ItemEdits e = edits();
    e.setAnyValue(LogRecord.BODY, e.boolValue(body));
    return this;
  }

  public LogRecordEditor setBody(long body) {
    ItemEdits e = edits();
    e.setAnyValue(LogRecord.BODY, e.intValue(body));
    return this;
  }

  public LogRecordEditor setBody(double body) {
    ItemEdits e = edits();
    e.setAnyValue(LogRecord.BODY, e.doubleValue(body));
    return this;
  }

  /** A {@code bytes_value} body. */
  public LogRecordEditor setBody(byte[] body) {
    ItemEdits e = edits();
    e.setAnyValue(LogRecord.BODY, e.bytesValue(body));
    return this;
  }

  /** The record has no body from now on. */
  public LogRecordEditor clearBody() {
    edits().clear(LogRecord.BODY);
    return this;
  }

  public LogRecordEditor putAttribute(String key, String value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.stringValue(value));
    return this;
  }

  /**
   * A string attribute given as its UTF-8 bytes {@code utf8[offset, offset + length)}, for a writer
   * that builds the text in a reused buffer; checked to be UTF-8.
   */
  public LogRecordEditor putStringAttribute(String key, byte[] utf8, int offset, int length) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.stringValue(utf8, offset, length));
    return this;
  }

  public LogRecordEditor putAttribute(String key, boolean value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.boolValue(value));
    return this;
  }

  public LogRecordEditor putAttribute(String key, long value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.intValue(value));
    return this;
  }

  public LogRecordEditor putAttribute(String key, double value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.doubleValue(value));
    return this;
  }

  /** A {@code bytes_value} attribute. */
  public LogRecordEditor putAttribute(String key, byte[] value) {
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
  public LogRecordEditor apply(AttributeActions actions) {
    edits.applyActions(EDITOR, actions);
    return this;
  }

  /** Removes every attribute with the key. */
  public LogRecordEditor removeAttribute(String key) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.removeAttribute(e.key(key));
    return this;
  }

  public LogRecordEditor setDroppedAttributesCount(int count) {
    edits()
        .setVarint(
            LogRecord.DROPPED_ATTRIBUTES_COUNT, ItemEdits.count(count, "dropped attributes"));
    return this;
  }

  /** {@code flags}: W3C trace flags in the low byte. */
  public LogRecordEditor setFlags(int flags) {
    edits().setFixed32(LogRecord.FLAGS, flags);
    return this;
  }

  /** The 16-byte trace ID, or an empty array to leave it out. */
  public LogRecordEditor setTraceId(byte[] traceId) {
    edits().setId(LogRecord.TRACE_ID, traceId, SpanView.TRACE_ID_BYTES, "a trace ID");
    return this;
  }

  /** The trace ID as two big-endian halves, as {@link LogRecordView#traceIdHigh()} reads them. */
  public LogRecordEditor setTraceId(long high, long low) {
    edits().setId(LogRecord.TRACE_ID, high, low, SpanView.TRACE_ID_BYTES);
    return this;
  }

  /** The 8-byte span ID, or an empty array to leave it out. */
  public LogRecordEditor setSpanId(byte[] spanId) {
    edits().setId(LogRecord.SPAN_ID, spanId, SpanView.SPAN_ID_BYTES, "a span ID");
    return this;
  }

  public LogRecordEditor setSpanId(long spanId) {
    edits().setId(LogRecord.SPAN_ID, 0, spanId, SpanView.SPAN_ID_BYTES);
    return this;
  }

  public LogRecordEditor setEventName(String eventName) {
    edits().setString(LogRecord.EVENT_NAME, eventName, "an event name");
    return this;
  }
}
