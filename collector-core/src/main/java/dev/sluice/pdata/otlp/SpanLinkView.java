package dev.sluice.pdata.otlp;

/**
 * A cursor over a span's links ({@link SpanView#links}), reading the current one in place. Made
 * once by the caller; valid as long as the span view that pointed it (see {@link BatchView}).
 */
public final class SpanLinkView extends RepeatedView {
  private static final int TRACE_ID = 1;
  private static final int SPAN_ID = 2;
  private static final int TRACE_STATE = 3;
  private static final int ATTRIBUTES = 4;
  private static final int DROPPED_ATTRIBUTES_COUNT = 5;
  private static final int FLAGS = 6;

  private final TextView traceState = new TextView();

  public SpanLinkView() {
    super(FLAGS);
  }

  /** Copies the linked trace ID into {@code destination[0..16)}; false (and zeros) when empty. */
  public boolean copyTraceId(byte[] destination) {
    return copyId(TRACE_ID, destination, SpanView.TRACE_ID_BYTES);
  }

  public long traceIdHigh() {
    return idLong(TRACE_ID, SpanView.TRACE_ID_BYTES, 0);
  }

  public long traceIdLow() {
    return idLong(TRACE_ID, SpanView.TRACE_ID_BYTES, Long.BYTES);
  }

  /** Copies the linked span ID into {@code destination[0..8)}; false (and zeros) when empty. */
  public boolean copySpanId(byte[] destination) {
    return copyId(SPAN_ID, destination, SpanView.SPAN_ID_BYTES);
  }

  public long spanIdLong() {
    return idLong(SPAN_ID, SpanView.SPAN_ID_BYTES, 0);
  }

  public TextView traceState() {
    return text(TRACE_STATE, traceState);
  }

  /** Points {@code cursor} at the link's attributes. */
  public AttributeCursor attributes(AttributeCursor cursor) {
    return attributes(ATTRIBUTES, cursor);
  }

  public int droppedAttributesCount() {
    return (int) varint(DROPPED_ATTRIBUTES_COUNT);
  }

  public int flags() {
    return fixed32(FLAGS);
  }
}
