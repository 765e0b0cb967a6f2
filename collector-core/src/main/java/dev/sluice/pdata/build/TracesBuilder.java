package dev.sluice.pdata.build;

import static dev.sluice.pdata.build.Fields.SPAN_ID_BYTES;
import static dev.sluice.pdata.build.Fields.TRACE_ID_BYTES;

import dev.sluice.pdata.Signal;
import dev.sluice.pdata.internal.OtlpEnums.SpanKind;
import dev.sluice.pdata.internal.OtlpEnums.StatusCode;
import dev.sluice.pdata.internal.OtlpFields.ScopeBlock;
import dev.sluice.pdata.internal.OtlpFields.Span;
import dev.sluice.pdata.internal.OtlpFields.SpanEvent;
import dev.sluice.pdata.internal.OtlpFields.SpanLink;
import dev.sluice.pdata.internal.OtlpFields.Status;
import dev.sluice.pdata.internal.ProtoWriter;

/**
 * Writes an {@code ExportTraceServiceRequest}: resource blocks, scope blocks and spans with their
 * events and links.
 *
 * <pre>{@code
 * TracesBuilder traces = new TracesBuilder();        // once per thread, reused
 * traces.resource().attributes().put("service.name", "checkout");
 * traces.scope().name("dev.sluice.zipkin").version("1.0");
 * SpanWriter span = traces.span()
 *     .traceId(traceId).spanId(spanId)
 *     .name("GET /users/{id}").kind(OtlpEnums.SpanKind.SERVER)
 *     .startTimeUnixNano(start).endTimeUnixNano(end);
 * span.attributes().put("http.route", "/users/{id}").put("http.response.status_code", 200);
 * span.event().timeUnixNano(end).name("done");
 * Batch batch = Batch.of(traces.build());
 * traces.reset();
 * }</pre>
 *
 * See {@link RequestBuilder} for the rules every builder follows.
 */
public final class TracesBuilder extends RequestBuilder {
  private final SpanWriter span = new SpanWriter();

  public TracesBuilder() {
    super(Signal.TRACES, "span");
  }

  /** Begins a span in the current scope block, ending the span before. */
  public SpanWriter span() {
    beginItem();
    span.start();
    return span;
  }

  @Override
  void endItem() {
    if (span.open) {
      span.end(items);
    }
  }

  @Override
  void dropItem() {
    span.close();
  }

  /** The span begun last; its events and links are begun from it. */
  public final class SpanWriter {
    private final byte[] traceId = new byte[TRACE_ID_BYTES];
    private boolean hasTraceId;
    private final byte[] spanId = new byte[SPAN_ID_BYTES];
    private boolean hasSpanId;
    private final ProtoWriter traceState = new ProtoWriter(32);
    private final byte[] parentSpanId = new byte[SPAN_ID_BYTES];
    private boolean hasParentSpanId;
    private int flags;
    private final ProtoWriter name = new ProtoWriter(64);
    private int kind;
    private long startTimeUnixNano;
    private long endTimeUnixNano;
    private final ValueWriter attributes = new ValueWriter("span", "attributes");
    private int droppedAttributesCount;
    private final ProtoWriter events = new ProtoWriter(64);
    private int droppedEventsCount;
    private final ProtoWriter links = new ProtoWriter(64);
    private int droppedLinksCount;
    private boolean hasStatus;
    private int statusCode;
    private final ProtoWriter statusMessage = new ProtoWriter(32);
    private final EventWriter event = new EventWriter();
    private final LinkWriter link = new LinkWriter();
    private boolean open;

    SpanWriter() {}

    /** 16 bytes, copied. */
    public SpanWriter traceId(byte[] id) {
      checkOpen();
      Fields.copyId(id, traceId, "trace ID");
      hasTraceId = true;
      return this;
    }

    /** 8 bytes, copied. */
    public SpanWriter spanId(byte[] id) {
      checkOpen();
      Fields.copyId(id, spanId, "span ID");
      hasSpanId = true;
      return this;
    }

    /** The W3C {@code tracestate} header's value. */
    public SpanWriter traceState(CharSequence traceState) {
      checkOpen();
      this.traceState.reset();
      Fields.string(this.traceState, Span.TRACE_STATE, traceState);
      return this;
    }

    /** 8 bytes, copied; a root span has none. */
    public SpanWriter parentSpanId(byte[] id) {
      checkOpen();
      Fields.copyId(id, parentSpanId, "parent span ID");
      hasParentSpanId = true;
      return this;
    }

    /** W3C trace flags in the low byte, and whether the parent is remote ({@code SpanFlags}). */
    public SpanWriter flags(int flags) {
      checkOpen();
      this.flags = flags;
      return this;
    }

    public SpanWriter name(CharSequence name) {
      checkOpen();
      this.name.reset();
      Fields.string(this.name, Span.NAME, name);
      return this;
    }

    /** One of {@code OtlpEnums.SpanKind}. */
    public SpanWriter kind(int kind) {
      checkOpen();
      this.kind = Fields.checkEnum(kind, SpanKind.CONSUMER, "SpanKind");
      return this;
    }

    public SpanWriter startTimeUnixNano(long nanos) {
      checkOpen();
      startTimeUnixNano = nanos;
      return this;
    }

    public SpanWriter endTimeUnixNano(long nanos) {
      checkOpen();
      endTimeUnixNano = nanos;
      return this;
    }

    public ValueWriter attributes() {
      checkOpen();
      return attributes;
    }

    /** Unsigned, as protobuf-java takes a {@code uint32}. */
    public SpanWriter droppedAttributesCount(int count) {
      checkOpen();
      droppedAttributesCount = count;
      return this;
    }

    /** Begins an event of this span, ending the event or link before. */
    public EventWriter event() {
      checkOpen();
      endChild();
      event.start();
      return event;
    }

    /** Unsigned, as protobuf-java takes a {@code uint32}. */
    public SpanWriter droppedEventsCount(int count) {
      checkOpen();
      droppedEventsCount = count;
      return this;
    }

    /** Begins a link of this span, ending the event or link before. */
    public LinkWriter link() {
      checkOpen();
      endChild();
      link.start();
      return link;
    }

    /** Unsigned, as protobuf-java takes a {@code uint32}. */
    public SpanWriter droppedLinksCount(int count) {
      checkOpen();
      droppedLinksCount = count;
      return this;
    }

    /** The span's {@code Status}: a code of {@code OtlpEnums.StatusCode}, and a message. */
    public SpanWriter status(int code, CharSequence message) {
      checkOpen();
      Fields.checkEnum(code, StatusCode.ERROR, "StatusCode");
      statusMessage.reset();
      Fields.string(statusMessage, Status.MESSAGE, message);
      statusCode = code;
      hasStatus = true;
      return this;
    }

    void start() {
      hasTraceId = false;
      hasSpanId = false;
      traceState.reset();
      hasParentSpanId = false;
      flags = 0;
      name.reset();
      kind = 0;
      startTimeUnixNano = 0;
      endTimeUnixNano = 0;
      attributes.start(Span.ATTRIBUTES);
      droppedAttributesCount = 0;
      events.reset();
      droppedEventsCount = 0;
      links.reset();
      droppedLinksCount = 0;
      hasStatus = false;
      statusCode = 0;
      statusMessage.reset();
      open = true;
    }

    private void endChild() {
      if (event.open) {
        event.end(events);
      } else if (link.open) {
        link.end(links);
      }
    }

    void end(ProtoWriter out) {
      endChild();
      attributes.checkClosed();
      int mark = out.beginLengthDelimited(ScopeBlock.ITEMS);
      if (hasTraceId) {
        Fields.bytes(out, Span.TRACE_ID, traceId, TRACE_ID_BYTES);
      }
      if (hasSpanId) {
        Fields.bytes(out, Span.SPAN_ID, spanId, SPAN_ID_BYTES);
      }
      Fields.copy(out, traceState);
      if (hasParentSpanId) {
        Fields.bytes(out, Span.PARENT_SPAN_ID, parentSpanId, SPAN_ID_BYTES);
      }
      Fields.copy(out, name);
      Fields.uint32(out, Span.KIND, kind);
      Fields.fixed64(out, Span.START_TIME_UNIX_NANO, startTimeUnixNano);
      Fields.fixed64(out, Span.END_TIME_UNIX_NANO, endTimeUnixNano);
      Fields.copy(out, attributes.bytes());
      Fields.uint32(out, Span.DROPPED_ATTRIBUTES_COUNT, droppedAttributesCount);
      Fields.copy(out, events);
      Fields.uint32(out, Span.DROPPED_EVENTS_COUNT, droppedEventsCount);
      Fields.copy(out, links);
      Fields.uint32(out, Span.DROPPED_LINKS_COUNT, droppedLinksCount);
      if (hasStatus) {
        int status = out.beginLengthDelimited(Span.STATUS);
        Fields.copy(out, statusMessage);
        Fields.uint32(out, Status.CODE, statusCode);
        out.endLengthDelimited(status);
      }
      Fields.fixed32(out, Span.FLAGS, flags);
      out.endLengthDelimited(mark);
      close();
    }

    void close() {
      event.close();
      link.close();
      attributes.close();
      open = false;
    }

    private void checkOpen() {
      if (!open) {
        throw new IllegalStateException("no span is open: call span() first");
      }
    }
  }

  /** The event begun last, of the span begun last. */
  public final class EventWriter {
    private long timeUnixNano;
    private final ProtoWriter name = new ProtoWriter(32);
    private final ValueWriter attributes = new ValueWriter("span event", "attributes");
    private int droppedAttributesCount;
    private boolean open;

    EventWriter() {}

    public EventWriter timeUnixNano(long nanos) {
      checkOpen();
      timeUnixNano = nanos;
      return this;
    }

    public EventWriter name(CharSequence name) {
      checkOpen();
      this.name.reset();
      Fields.string(this.name, SpanEvent.NAME, name);
      return this;
    }

    public ValueWriter attributes() {
      checkOpen();
      return attributes;
    }

    /** Unsigned, as protobuf-java takes a {@code uint32}. */
    public EventWriter droppedAttributesCount(int count) {
      checkOpen();
      droppedAttributesCount = count;
      return this;
    }

    void start() {
      timeUnixNano = 0;
      name.reset();
      attributes.start(SpanEvent.ATTRIBUTES);
      droppedAttributesCount = 0;
      open = true;
    }

    void end(ProtoWriter out) {
      attributes.checkClosed();
      int mark = out.beginLengthDelimited(Span.EVENTS);
      Fields.fixed64(out, SpanEvent.TIME_UNIX_NANO, timeUnixNano);
      Fields.copy(out, name);
      Fields.copy(out, attributes.bytes());
      Fields.uint32(out, SpanEvent.DROPPED_ATTRIBUTES_COUNT, droppedAttributesCount);
      out.endLengthDelimited(mark);
      close();
    }

    void close() {
      attributes.close();
      open = false;
    }

    private void checkOpen() {
      if (!open) {
        throw new IllegalStateException("no span event is open: call event() on a span first");
      }
    }
  }

  /** The link begun last, of the span begun last. */
  public final class LinkWriter {
    private final byte[] traceId = new byte[TRACE_ID_BYTES];
    private boolean hasTraceId;
    private final byte[] spanId = new byte[SPAN_ID_BYTES];
    private boolean hasSpanId;
    private final ProtoWriter traceState = new ProtoWriter(32);
    private final ValueWriter attributes = new ValueWriter("span link", "attributes");
    private int droppedAttributesCount;
    private int flags;
    private boolean open;

    LinkWriter() {}

    /** 16 bytes, copied. */
    public LinkWriter traceId(byte[] id) {
      checkOpen();
      Fields.copyId(id, traceId, "trace ID");
      hasTraceId = true;
      return this;
    }

    /** 8 bytes, copied. */
    public LinkWriter spanId(byte[] id) {
      checkOpen();
      Fields.copyId(id, spanId, "span ID");
      hasSpanId = true;
      return this;
    }

    public LinkWriter traceState(CharSequence traceState) {
      checkOpen();
      this.traceState.reset();
      Fields.string(this.traceState, SpanLink.TRACE_STATE, traceState);
      return this;
    }

    public ValueWriter attributes() {
      checkOpen();
      return attributes;
    }

    /** Unsigned, as protobuf-java takes a {@code uint32}. */
    public LinkWriter droppedAttributesCount(int count) {
      checkOpen();
      droppedAttributesCount = count;
      return this;
    }

    /** W3C trace flags in the low byte, and whether the link is remote ({@code SpanFlags}). */
    public LinkWriter flags(int flags) {
      checkOpen();
      this.flags = flags;
      return this;
    }

    void start() {
      hasTraceId = false;
      hasSpanId = false;
      traceState.reset();
      attributes.start(SpanLink.ATTRIBUTES);
      droppedAttributesCount = 0;
      flags = 0;
      open = true;
    }

    void end(ProtoWriter out) {
      attributes.checkClosed();
      int mark = out.beginLengthDelimited(Span.LINKS);
      if (hasTraceId) {
        Fields.bytes(out, SpanLink.TRACE_ID, traceId, TRACE_ID_BYTES);
      }
      if (hasSpanId) {
        Fields.bytes(out, SpanLink.SPAN_ID, spanId, SPAN_ID_BYTES);
      }
      Fields.copy(out, traceState);
      Fields.copy(out, attributes.bytes());
      Fields.uint32(out, SpanLink.DROPPED_ATTRIBUTES_COUNT, droppedAttributesCount);
      Fields.fixed32(out, SpanLink.FLAGS, flags);
      out.endLengthDelimited(mark);
      close();
    }

    void close() {
      attributes.close();
      open = false;
    }

    private void checkOpen() {
      if (!open) {
        throw new IllegalStateException("no span link is open: call link() on a span first");
      }
    }
  }
}
