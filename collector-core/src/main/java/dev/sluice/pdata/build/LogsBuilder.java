package dev.sluice.pdata.build;

import static dev.sluice.pdata.build.Fields.SPAN_ID_BYTES;
import static dev.sluice.pdata.build.Fields.TRACE_ID_BYTES;

import dev.sluice.pdata.Signal;
import dev.sluice.pdata.internal.OtlpEnums.SeverityNumber;
import dev.sluice.pdata.internal.OtlpFields.LogRecord;
import dev.sluice.pdata.internal.OtlpFields.ScopeBlock;
import dev.sluice.pdata.internal.ProtoWriter;

/**
 * Writes an {@code ExportLogsServiceRequest}: resource blocks, scope blocks and log records.
 *
 * <pre>{@code
 * LogsBuilder logs = new LogsBuilder();              // once per thread, reused
 * logs.resource().attributes().put("service.name", "checkout");
 * logs.scope().name("dev.sluice.syslog");
 * logs.logRecord()
 *     .timeUnixNano(time).observedTimeUnixNano(now)
 *     .severityNumber(OtlpEnums.SeverityNumber.WARN).severityText("WARN")
 *     .body("disk 91% full")
 *     .attributes().put("host.name", host);
 * Batch batch = Batch.of(logs.build());
 * }</pre>
 *
 * See {@link RequestBuilder} for the rules every builder follows.
 */
public final class LogsBuilder extends RequestBuilder {
  private final LogRecordWriter logRecord = new LogRecordWriter();

  public LogsBuilder() {
    super(Signal.LOGS, "log record");
  }

  /** Begins a log record in the current scope block, ending the log record before. */
  public LogRecordWriter logRecord() {
    beginItem();
    logRecord.start();
    return logRecord;
  }

  @Override
  void endItem() {
    if (logRecord.open) {
      logRecord.end(items);
    }
  }

  @Override
  void dropItem() {
    logRecord.close();
  }

  /** The log record begun last. */
  public final class LogRecordWriter {
    private long timeUnixNano;
    private int severityNumber;
    private final ProtoWriter severityText = new ProtoWriter(16);
    private final ValueWriter body = new ValueWriter("log record", "body");
    private final ValueWriter attributes = new ValueWriter("log record", "attributes");
    private int droppedAttributesCount;
    private int flags;
    private final byte[] traceId = new byte[TRACE_ID_BYTES];
    private boolean hasTraceId;
    private final byte[] spanId = new byte[SPAN_ID_BYTES];
    private boolean hasSpanId;
    private long observedTimeUnixNano;
    private final ProtoWriter eventName = new ProtoWriter(32);
    private boolean open;

    LogRecordWriter() {}

    public LogRecordWriter timeUnixNano(long nanos) {
      checkOpen();
      timeUnixNano = nanos;
      return this;
    }

    public LogRecordWriter observedTimeUnixNano(long nanos) {
      checkOpen();
      observedTimeUnixNano = nanos;
      return this;
    }

    /** One of {@code OtlpEnums.SeverityNumber}. */
    public LogRecordWriter severityNumber(int severity) {
      checkOpen();
      severityNumber = Fields.checkEnum(severity, SeverityNumber.FATAL4, "SeverityNumber");
      return this;
    }

    public LogRecordWriter severityText(CharSequence text) {
      checkOpen();
      severityText.reset();
      Fields.string(severityText, LogRecord.SEVERITY_TEXT, text);
      return this;
    }

    /** A string body, in place of any body set before. */
    public LogRecordWriter body(CharSequence value) {
      checkOpen();
      body.rootString(LogRecord.BODY, value);
      return this;
    }

    public LogRecordWriter body(boolean value) {
      checkOpen();
      body.rootBool(LogRecord.BODY, value);
      return this;
    }

    public LogRecordWriter body(long value) {
      checkOpen();
      body.rootInt(LogRecord.BODY, value);
      return this;
    }

    public LogRecordWriter body(double value) {
      checkOpen();
      body.rootDouble(LogRecord.BODY, value);
      return this;
    }

    /** A {@code bytes_value} body: the whole array, copied. */
    public LogRecordWriter body(byte[] value) {
      checkOpen();
      body.rootBytes(LogRecord.BODY, value);
      return this;
    }

    /** A body that is present and empty (an {@code AnyValue} with no value set). */
    public LogRecordWriter emptyBody() {
      checkOpen();
      body.rootEmpty(LogRecord.BODY);
      return this;
    }

    /** Opens an array body, in place of any body set before; {@code end()} closes it. */
    public ValueWriter arrayBody() {
      checkOpen();
      return body.rootList(LogRecord.BODY, true);
    }

    /** Opens a key-value list body, in place of any body set before; {@code end()} closes it. */
    public ValueWriter kvListBody() {
      checkOpen();
      return body.rootList(LogRecord.BODY, false);
    }

    public ValueWriter attributes() {
      checkOpen();
      return attributes;
    }

    /** Unsigned, as protobuf-java takes a {@code uint32}. */
    public LogRecordWriter droppedAttributesCount(int count) {
      checkOpen();
      droppedAttributesCount = count;
      return this;
    }

    /** W3C trace flags in the low byte ({@code LogRecordFlags}). */
    public LogRecordWriter flags(int flags) {
      checkOpen();
      this.flags = flags;
      return this;
    }

    /** 16 bytes, copied. */
    public LogRecordWriter traceId(byte[] id) {
      checkOpen();
      Fields.copyId(id, traceId, "trace ID");
      hasTraceId = true;
      return this;
    }

    /** 8 bytes, copied. */
    public LogRecordWriter spanId(byte[] id) {
      checkOpen();
      Fields.copyId(id, spanId, "span ID");
      hasSpanId = true;
      return this;
    }

    public LogRecordWriter eventName(CharSequence name) {
      checkOpen();
      eventName.reset();
      Fields.string(eventName, LogRecord.EVENT_NAME, name);
      return this;
    }

    void start() {
      timeUnixNano = 0;
      severityNumber = 0;
      severityText.reset();
      body.start(0);
      attributes.start(LogRecord.ATTRIBUTES);
      droppedAttributesCount = 0;
      flags = 0;
      hasTraceId = false;
      hasSpanId = false;
      observedTimeUnixNano = 0;
      eventName.reset();
      open = true;
    }

    void end(ProtoWriter out) {
      body.checkClosed();
      attributes.checkClosed();
      int mark = out.beginLengthDelimited(ScopeBlock.ITEMS);
      Fields.fixed64(out, LogRecord.TIME_UNIX_NANO, timeUnixNano);
      Fields.uint32(out, LogRecord.SEVERITY_NUMBER, severityNumber);
      Fields.copy(out, severityText);
      Fields.copy(out, body.bytes());
      Fields.copy(out, attributes.bytes());
      Fields.uint32(out, LogRecord.DROPPED_ATTRIBUTES_COUNT, droppedAttributesCount);
      Fields.fixed32(out, LogRecord.FLAGS, flags);
      if (hasTraceId) {
        Fields.bytes(out, LogRecord.TRACE_ID, traceId, TRACE_ID_BYTES);
      }
      if (hasSpanId) {
        Fields.bytes(out, LogRecord.SPAN_ID, spanId, SPAN_ID_BYTES);
      }
      Fields.fixed64(out, LogRecord.OBSERVED_TIME_UNIX_NANO, observedTimeUnixNano);
      Fields.copy(out, eventName);
      out.endLengthDelimited(mark);
      close();
    }

    void close() {
      body.close();
      attributes.close();
      open = false;
    }

    private void checkOpen() {
      if (!open) {
        throw new IllegalStateException("no log record is open: call logRecord() first");
      }
    }
  }
}
