package dev.sluice.pdata.edit;

import dev.sluice.pdata.internal.AddedElement;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.ItemEdits;
import dev.sluice.pdata.internal.OtlpEnums.SpanKind;
import dev.sluice.pdata.internal.OtlpEnums.StatusCode;
import dev.sluice.pdata.internal.OtlpFields.Span;
import dev.sluice.pdata.internal.OtlpFields.SpanEvent;
import dev.sluice.pdata.internal.OtlpFields.SpanLink;
import dev.sluice.pdata.internal.OtlpFields.Status;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.RemovalFilter;
import dev.sluice.pdata.internal.Utf8Encoding;
import dev.sluice.pdata.internal.WireType;
import dev.sluice.pdata.view.SpanEventView;
import dev.sluice.pdata.view.SpanLinkView;
import dev.sluice.pdata.view.SpanView;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Changes the fields of the span a {@link Batch#visit} is at, without decoding it: {@link
 * BatchItem#editSpan()} hands it out. Every call is checked at once (IDs of the right length, enum
 * values OTLP defines, strings that have a UTF-8 form), so an edit cannot make a span the edge
 * would refuse; misuse throws {@link IllegalArgumentException}.
 *
 * <p>The changes are written when the visitor's call ends, all at once: the span is re-encoded in
 * one pass, every field not changed copied as bytes (unknown fields included), into one replacement
 * that the batch stores; a span whose changes leave its bytes as they were is not replaced. Reading
 * the item within the call ({@link BatchItem#span()}, {@link BatchItem#array()}) writes the changes
 * made so far first, so that it reads them. Setting a field to its default value (0, the empty
 * string) leaves it out, as protobuf does.
 *
 * <p>Attributes are changed as if one change were made after the other: a put replaces the value of
 * the key's first entry where it is (later entries with the key go) or appends an entry, a remove
 * takes every entry with the key. Events and links added follow the span's own; removals by
 * predicate decide the span's own events and links, not those added.
 *
 * <p>One per thread's visits, reused: valid only during the visitor's call that got it, and
 * allocation-free once warm.
 */
public final class SpanEditor {
  private static final String EDITOR = "SpanEditor";

  private final ItemEdits edits;
  private final RemovalFilter<SpanEventView> eventRemovals =
      new RemovalFilter<>(Span.EVENTS, new SpanEventView());
  private final RemovalFilter<SpanLinkView> linkRemovals =
      new RemovalFilter<>(Span.LINKS, new SpanLinkView());
  private final AddedEvent addedEvent;
  private final AddedLink addedLink;

  @Internal
  public SpanEditor(ItemEdits edits) {
    this.edits = edits;
    edits.register(eventRemovals);
    edits.register(linkRemovals);
    this.addedEvent = new AddedEvent(edits);
    this.addedLink = new AddedLink(edits);
  }

  private ItemEdits edits() {
    edits.check(EDITOR);
    return edits;
  }

  /** The 16-byte trace ID, or an empty array to leave it out. */
  public SpanEditor setTraceId(byte[] traceId) {
    edits().setId(Span.TRACE_ID, traceId, SpanView.TRACE_ID_BYTES, "a trace ID");
    return this;
  }

  /** The trace ID as two big-endian halves, as {@link SpanView#traceIdHigh()} reads them. */
  public SpanEditor setTraceId(long high, long low) {
    edits().setId(Span.TRACE_ID, high, low, SpanView.TRACE_ID_BYTES);
    return this;
  }

  /** The 8-byte span ID, or an empty array to leave it out. */
  public SpanEditor setSpanId(byte[] spanId) {
    edits().setId(Span.SPAN_ID, spanId, SpanView.SPAN_ID_BYTES, "a span ID");
    return this;
  }

  /** The span ID as a big-endian long, as {@link SpanView#spanIdLong()} reads it. */
  public SpanEditor setSpanId(long spanId) {
    edits().setId(Span.SPAN_ID, 0, spanId, SpanView.SPAN_ID_BYTES);
    return this;
  }

  /** The 8-byte parent span ID, or an empty array to make the span a root. */
  public SpanEditor setParentSpanId(byte[] parentSpanId) {
    edits().setId(Span.PARENT_SPAN_ID, parentSpanId, SpanView.SPAN_ID_BYTES, "a parent span ID");
    return this;
  }

  public SpanEditor setParentSpanId(long parentSpanId) {
    edits().setId(Span.PARENT_SPAN_ID, 0, parentSpanId, SpanView.SPAN_ID_BYTES);
    return this;
  }

  public SpanEditor setTraceState(String traceState) {
    edits().setString(Span.TRACE_STATE, traceState, "a trace state");
    return this;
  }

  /**
   * The trace state given as its UTF-8 bytes {@code utf8[offset, offset + length)}, for a writer
   * that builds it in a reused buffer; checked to be UTF-8 as {@link #setTraceState(String)} checks
   * a string to have a UTF-8 form.
   */
  public SpanEditor setTraceState(byte[] utf8, int offset, int length) {
    edits().setUtf8(Span.TRACE_STATE, utf8, offset, length, "a trace state");
    return this;
  }

  /** {@code flags}: W3C trace flags in the low byte, whether the parent is remote above. */
  public SpanEditor setFlags(int flags) {
    edits().setFixed32(Span.FLAGS, flags);
    return this;
  }

  public SpanEditor setName(String name) {
    edits().setString(Span.NAME, name, "a span name");
    return this;
  }

  /** A {@link SpanKind} value. */
  public SpanEditor setKind(int kind) {
    if (kind < SpanKind.UNSPECIFIED || kind > SpanKind.CONSUMER) {
      throw new IllegalArgumentException(
          "span kind " + kind + " is not a SpanKind (0 to " + SpanKind.CONSUMER + ")");
    }
    edits().setVarint(Span.KIND, kind);
    return this;
  }

  public SpanEditor setStartTimeUnixNano(long startTimeUnixNano) {
    edits().setFixed64(Span.START_TIME_UNIX_NANO, startTimeUnixNano);
    return this;
  }

  public SpanEditor setEndTimeUnixNano(long endTimeUnixNano) {
    edits().setFixed64(Span.END_TIME_UNIX_NANO, endTimeUnixNano);
    return this;
  }

  /**
   * The status: one of {@link SpanView}'s {@code STATUS_} constants and its message; the status's
   * other fields stay.
   */
  public SpanEditor setStatus(int code, String message) {
    setStatusCode(code);
    return setStatusMessage(message);
  }

  /** One of {@link SpanView}'s {@code STATUS_} constants; the status's message stays. */
  public SpanEditor setStatusCode(int code) {
    if (code < StatusCode.UNSET || code > StatusCode.ERROR) {
      throw new IllegalArgumentException(
          "status code " + code + " is not a StatusCode (0 to " + StatusCode.ERROR + ")");
    }
    edits().setChildVarint(Span.STATUS, Status.CODE, code);
    return this;
  }

  /** The status's message; its code stays. */
  public SpanEditor setStatusMessage(String message) {
    edits().setChildString(Span.STATUS, Status.MESSAGE, message, "a status message");
    return this;
  }

  public SpanEditor setDroppedAttributesCount(int count) {
    edits().setVarint(Span.DROPPED_ATTRIBUTES_COUNT, ItemEdits.count(count, "dropped attributes"));
    return this;
  }

  public SpanEditor setDroppedEventsCount(int count) {
    edits().setVarint(Span.DROPPED_EVENTS_COUNT, ItemEdits.count(count, "dropped events"));
    return this;
  }

  public SpanEditor setDroppedLinksCount(int count) {
    edits().setVarint(Span.DROPPED_LINKS_COUNT, ItemEdits.count(count, "dropped links"));
    return this;
  }

  public SpanEditor putAttribute(String key, String value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.stringValue(value));
    return this;
  }

  /**
   * A string attribute given as its UTF-8 bytes {@code utf8[offset, offset + length)}, for a writer
   * that builds the text in a reused buffer; checked to be UTF-8.
   */
  public SpanEditor putStringAttribute(String key, byte[] utf8, int offset, int length) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.stringValue(utf8, offset, length));
    return this;
  }

  public SpanEditor putAttribute(String key, boolean value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.boolValue(value));
    return this;
  }

  public SpanEditor putAttribute(String key, long value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.intValue(value));
    return this;
  }

  public SpanEditor putAttribute(String key, double value) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.putAttribute(e.key(key), e.doubleValue(value));
    return this;
  }

  /** A {@code bytes_value} attribute. */
  public SpanEditor putAttribute(String key, byte[] value) {
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
  public SpanEditor apply(AttributeActions actions) {
    edits.applyActions(EDITOR, actions);
    return this;
  }

  /** Removes every attribute with the key. */
  public SpanEditor removeAttribute(String key) {
    ItemEdits e = edits.forAttributeChange(EDITOR);
    e.removeAttribute(e.key(key));
    return this;
  }

  /**
   * Adds an event after the span's events; its attributes and dropped count follow on the event
   * returned, which takes them until the next event or link is added or the call ends.
   */
  public AddedEvent addEvent(long timeUnixNano, String name) {
    ItemEdits e = edits();
    Objects.requireNonNull(name, "an event name");
    int nameLength = Utf8Encoding.length(name, "an event name");
    addedEvent.open(Span.EVENTS);
    ProtoWriter out = e.appended;
    if (timeUnixNano != 0) {
      out.writeTag(SpanEvent.TIME_UNIX_NANO, WireType.I64);
      out.writeFixed64(timeUnixNano);
    }
    if (nameLength > 0) {
      out.writeLengthDelimitedHeader(SpanEvent.NAME, nameLength);
      Utf8Encoding.write(out, name, nameLength);
    }
    return addedEvent;
  }

  /** Removes the span's events that {@code remove} accepts (it sees each through a view). */
  public SpanEditor removeEvents(Predicate<? super SpanEventView> remove) {
    Objects.requireNonNull(remove, "a predicate");
    edits().touched();
    eventRemovals.add(remove);
    return this;
  }

  /**
   * Adds a link to the span {@code spanId} (8 bytes) of the trace {@code traceId} (16 bytes) after
   * the span's links; its other fields follow on the link returned, which takes them until the next
   * event or link is added or the call ends.
   */
  public AddedLink addLink(byte[] traceId, byte[] spanId) {
    ItemEdits e = edits();
    checkId(traceId, SpanView.TRACE_ID_BYTES, "a linked trace ID");
    checkId(spanId, SpanView.SPAN_ID_BYTES, "a linked span ID");
    addedLink.open(Span.LINKS);
    ProtoWriter out = e.appended;
    out.writeLengthDelimitedHeader(SpanLink.TRACE_ID, traceId.length);
    out.writeBytes(traceId, 0, traceId.length);
    out.writeLengthDelimitedHeader(SpanLink.SPAN_ID, spanId.length);
    out.writeBytes(spanId, 0, spanId.length);
    return addedLink;
  }

  private static void checkId(byte[] id, int idBytes, String what) {
    Objects.requireNonNull(id, what);
    if (id.length != idBytes) {
      throw new IllegalArgumentException(what + " is " + idBytes + " bytes, not " + id.length);
    }
  }

  /** Removes the span's links that {@code remove} accepts (it sees each through a view). */
  public SpanEditor removeLinks(Predicate<? super SpanLinkView> remove) {
    Objects.requireNonNull(remove, "a predicate");
    edits().touched();
    linkRemovals.add(remove);
    return this;
  }

  /**
   * The event being added: see {@link SpanEditor#addEvent}. One reused flyweight, which the next
   * {@code addEvent} points at the next event.
   */
  public static final class AddedEvent extends AddedElement {
    private int droppedAttributesCount;

    AddedEvent(ItemEdits edits) {
      super(edits, "event", SpanEvent.ATTRIBUTES);
    }

    public AddedEvent addAttribute(String key, String value) {
      checkOpen();
      entry(edits.key(key), edits.stringValue(value));
      return this;
    }

    public AddedEvent addAttribute(String key, boolean value) {
      checkOpen();
      entry(edits.key(key), edits.boolValue(value));
      return this;
    }

    public AddedEvent addAttribute(String key, long value) {
      checkOpen();
      entry(edits.key(key), edits.intValue(value));
      return this;
    }

    public AddedEvent addAttribute(String key, double value) {
      checkOpen();
      entry(edits.key(key), edits.doubleValue(value));
      return this;
    }

    public AddedEvent addAttribute(String key, byte[] value) {
      checkOpen();
      entry(edits.key(key), edits.bytesValue(value));
      return this;
    }

    public AddedEvent setDroppedAttributesCount(int count) {
      checkOpen();
      droppedAttributesCount = ItemEdits.count(count, "dropped attributes");
      return this;
    }

    @Override
    @Internal
    public void forgetKeptFields() {
      droppedAttributesCount = 0;
    }

    @Override
    @Internal
    public void writeKeptFields(ProtoWriter out) {
      if (droppedAttributesCount != 0) {
        out.writeTag(SpanEvent.DROPPED_ATTRIBUTES_COUNT, WireType.VARINT);
        out.writeVarint32(droppedAttributesCount);
      }
    }
  }

  /**
   * The link being added: see {@link SpanEditor#addLink}. One reused flyweight, which the next
   * {@code addLink} points at the next link.
   */
  public static final class AddedLink extends AddedElement {
    private int droppedAttributesCount;
    private int flags;
    private String traceState = "";

    AddedLink(ItemEdits edits) {
      super(edits, "link", SpanLink.ATTRIBUTES);
    }

    public AddedLink setTraceState(String traceState) {
      checkOpen();
      Objects.requireNonNull(traceState, "a trace state");
      Utf8Encoding.length(traceState, "a trace state");
      this.traceState = traceState;
      return this;
    }

    public AddedLink setFlags(int flags) {
      checkOpen();
      this.flags = flags;
      return this;
    }

    public AddedLink addAttribute(String key, String value) {
      checkOpen();
      entry(edits.key(key), edits.stringValue(value));
      return this;
    }

    public AddedLink addAttribute(String key, boolean value) {
      checkOpen();
      entry(edits.key(key), edits.boolValue(value));
      return this;
    }

    public AddedLink addAttribute(String key, long value) {
      checkOpen();
      entry(edits.key(key), edits.intValue(value));
      return this;
    }

    public AddedLink addAttribute(String key, double value) {
      checkOpen();
      entry(edits.key(key), edits.doubleValue(value));
      return this;
    }

    public AddedLink addAttribute(String key, byte[] value) {
      checkOpen();
      entry(edits.key(key), edits.bytesValue(value));
      return this;
    }

    public AddedLink setDroppedAttributesCount(int count) {
      checkOpen();
      droppedAttributesCount = ItemEdits.count(count, "dropped attributes");
      return this;
    }

    @Override
    @Internal
    public void forgetKeptFields() {
      traceState = "";
      droppedAttributesCount = 0;
      flags = 0;
    }

    @Override
    @Internal
    public void writeKeptFields(ProtoWriter out) {
      int length = Utf8Encoding.length(traceState, "a trace state");
      if (length > 0) {
        out.writeLengthDelimitedHeader(SpanLink.TRACE_STATE, length);
        Utf8Encoding.write(out, traceState, length);
      }
      if (droppedAttributesCount != 0) {
        out.writeTag(SpanLink.DROPPED_ATTRIBUTES_COUNT, WireType.VARINT);
        out.writeVarint32(droppedAttributesCount);
      }
      if (flags != 0) {
        out.writeTag(SpanLink.FLAGS, WireType.I32);
        out.writeFixed32(flags);
      }
    }
  }
}
