package dev.sluice.pdata.view;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.ItemView;
import dev.sluice.pdata.internal.OtlpEnums.SpanKind;
import dev.sluice.pdata.internal.OtlpEnums.StatusCode;
import dev.sluice.pdata.internal.OtlpFields.Span;
import dev.sluice.pdata.internal.OtlpFields.Status;
import dev.sluice.pdata.internal.PlainMessage;
import dev.sluice.pdata.internal.ProtoWriter;

/**
 * A span read in place: scalars straight from the bytes, strings as {@link TextView}s, IDs copied
 * into the caller's buffers or read as longs, attributes, events and links through the caller's
 * cursors. Handed to visitors by {@link BatchView}; valid only during that visit.
 */
public final class SpanView extends ItemView {
  /** Bytes of a trace ID. */
  public static final int TRACE_ID_BYTES = 16;

  /** Bytes of a span ID. */
  public static final int SPAN_ID_BYTES = 8;

  private final TextView name = new TextView();
  private final TextView traceState = new TextView();
  private final TextView statusMessage = new TextView();
  private final PlainMessage status = new PlainMessage(Status.CODE);

  // The item the view shows when a batch visit made it, which keeps where the one span walk found a
  // new trace_state goes; null for a view of no item.
  private final BatchItem item;

  @Internal
  public SpanView() {
    this(null);
  }

  @Internal
  public SpanView(BatchItem item) {
    super(Span.FLAGS);
    this.item = item;
  }

  /**
   * Tells the item the view shows (if any) where a trace_state field goes in the span as wrapped
   * now, as the one span walk found it on its way ({@link SpanFieldScan}): at {@code at}, the first
   * field numbered trace_state or higher (or the end), and the span's one trace_state field is
   * {@code [from, to)} ({@code from} -1 for none).
   */
  void placeTraceState(int at, int from, int to) {
    if (item != null) {
      item.placeTraceState(bytes, start, end, at, from, to);
    }
  }

  @Override
  @Internal
  public void release() {
    super.release();
    name.release();
    traceState.release();
    statusMessage.release();
    status.release();
  }

  /**
   * Whether the span's bytes are as the receiver's validator passed them in its span loop: each of
   * its attributes fields is then a key and then a value, each with a one-byte length, and nothing
   * else. False when unknown (a span another processor rewrote, or one read outside an edit).
   */
  @Internal
  public boolean commonSpan() {
    return commonSpan;
  }

  /** Copies the trace ID into {@code destination[0..16)}; false (and zeros) when it is empty. */
  public boolean copyTraceId(byte[] destination) {
    return copyId(Span.TRACE_ID, destination, TRACE_ID_BYTES);
  }

  /** The trace ID's first eight bytes as a big-endian long (0 when empty): for hashing. */
  public long traceIdHigh() {
    return idLong(Span.TRACE_ID, TRACE_ID_BYTES, 0);
  }

  /** The trace ID's last eight bytes as a big-endian long (0 when empty). */
  public long traceIdLow() {
    return idLong(Span.TRACE_ID, TRACE_ID_BYTES, Long.BYTES);
  }

  /** Copies the span ID into {@code destination[0..8)}; false (and zeros) when it is empty. */
  public boolean copySpanId(byte[] destination) {
    return copyId(Span.SPAN_ID, destination, SPAN_ID_BYTES);
  }

  /** The span ID as a big-endian long (0 when empty). */
  public long spanIdLong() {
    return idLong(Span.SPAN_ID, SPAN_ID_BYTES, 0);
  }

  /** Whether the span has a parent span ID (a root span has none). */
  public boolean hasParentSpanId() {
    return hasId(Span.PARENT_SPAN_ID, SPAN_ID_BYTES);
  }

  /** Copies the parent span ID into {@code destination[0..8)}; false (and zeros) when empty. */
  public boolean copyParentSpanId(byte[] destination) {
    return copyId(Span.PARENT_SPAN_ID, destination, SPAN_ID_BYTES);
  }

  /** The parent span ID as a big-endian long (0 when empty). */
  public long parentSpanIdLong() {
    return idLong(Span.PARENT_SPAN_ID, SPAN_ID_BYTES, 0);
  }

  public TextView traceState() {
    return text(Span.TRACE_STATE, traceState);
  }

  public TextView name() {
    return text(Span.NAME, name);
  }

  public boolean nameEquals(CharSequence text) {
    return name().contentEquals(text);
  }

  public boolean nameEquals(byte[] utf8) {
    return name().contentEquals(utf8);
  }

  /** {@link #kind()}: {@code SPAN_KIND_UNSPECIFIED}. */
  public static final int KIND_UNSPECIFIED = SpanKind.UNSPECIFIED;

  /** {@link #kind()}: {@code SPAN_KIND_INTERNAL}. */
  public static final int KIND_INTERNAL = SpanKind.INTERNAL;

  /** {@link #kind()}: {@code SPAN_KIND_SERVER}. */
  public static final int KIND_SERVER = SpanKind.SERVER;

  /** {@link #kind()}: {@code SPAN_KIND_CLIENT}. */
  public static final int KIND_CLIENT = SpanKind.CLIENT;

  /** {@link #kind()}: {@code SPAN_KIND_PRODUCER}. */
  public static final int KIND_PRODUCER = SpanKind.PRODUCER;

  /** {@link #kind()}: {@code SPAN_KIND_CONSUMER}, the highest. */
  public static final int KIND_CONSUMER = SpanKind.CONSUMER;

  /** A status code ({@link #statusCode()}): {@code STATUS_CODE_UNSET}. */
  public static final int STATUS_UNSET = StatusCode.UNSET;

  /** A status code: {@code STATUS_CODE_OK}. */
  public static final int STATUS_OK = StatusCode.OK;

  /** A status code: {@code STATUS_CODE_ERROR}. */
  public static final int STATUS_ERROR = StatusCode.ERROR;

  /** {@code SpanKind} as its number: one of the {@code KIND_} constants, or a newer kind. */
  public int kind() {
    return (int) varint(Span.KIND);
  }

  public long startTimeUnixNano() {
    return fixed64(Span.START_TIME_UNIX_NANO);
  }

  public long endTimeUnixNano() {
    return fixed64(Span.END_TIME_UNIX_NANO);
  }

  /** Points {@code cursor} at the span's attributes. */
  public AttributeCursor attributes(AttributeCursor cursor) {
    return attributes(Span.ATTRIBUTES, cursor);
  }

  public int droppedAttributesCount() {
    return (int) varint(Span.DROPPED_ATTRIBUTES_COUNT);
  }

  /** Points {@code events} before the span's first event; {@code events.next()} walks them. */
  public SpanEventView events(SpanEventView events) {
    events.point(bytes, start, end, Span.EVENTS);
    return events;
  }

  public int droppedEventsCount() {
    return (int) varint(Span.DROPPED_EVENTS_COUNT);
  }

  /** Points {@code links} before the span's first link; {@code links.next()} walks them. */
  public SpanLinkView links(SpanLinkView links) {
    links.point(bytes, start, end, Span.LINKS);
    return links;
  }

  public int droppedLinksCount() {
    return (int) varint(Span.DROPPED_LINKS_COUNT);
  }

  /** {@code Status.code} as its number (0 unset, 1 ok, 2 error). */
  public int statusCode() {
    return (int) status.wrapField(this, Span.STATUS).varint(Status.CODE);
  }

  public TextView statusMessage() {
    return status.wrapField(this, Span.STATUS).text(Status.MESSAGE, statusMessage);
  }

  /** {@code flags}: W3C trace flags in the low byte, and whether the parent is remote. */
  public int flags() {
    return fixed32(Span.FLAGS);
  }

  /** Appends the span's {@code Span} message (without a tag or length) to {@code out}. */
  @Internal
  public void writeTo(ProtoWriter out) {
    out.writeBytes(bytes, start, end - start);
  }

  /** Length of the span's {@code Span} message. */
  public int encodedLength() {
    return end - start;
  }

  /**
   * The bytes the span is read from: its {@code Span} message (without tag or length) is {@code
   * array()[messageStart(), messageEnd())}. For a reader that walks the span's fields once itself
   * (a compiled condition); read-only, valid as long as the view.
   */
  public byte[] array() {
    return bytes;
  }

  /** Where the span's message starts in {@link #array()}. */
  public int messageStart() {
    return start;
  }

  /** Where the span's message ends in {@link #array()}. */
  public int messageEnd() {
    return end;
  }
}
