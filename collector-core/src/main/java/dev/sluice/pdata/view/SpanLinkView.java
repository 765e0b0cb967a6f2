package dev.sluice.pdata.view;

import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.OtlpFields.SpanLink;
import dev.sluice.pdata.internal.RepeatedView;

/**
 * A cursor over a span's links ({@link SpanView#links}), reading the current one in place. Made
 * once by the caller; valid as long as the span view that pointed it (see {@link BatchView}).
 */
public final class SpanLinkView extends RepeatedView {

  private final TextView traceState = new TextView();

  public SpanLinkView() {
    super(SpanLink.FLAGS);
  }

  @Override
  @Internal
  public void release() {
    super.release();
    traceState.release();
  }

  /** Copies the linked trace ID into {@code destination[0..16)}; false (and zeros) when empty. */
  public boolean copyTraceId(byte[] destination) {
    return copyId(SpanLink.TRACE_ID, destination, SpanView.TRACE_ID_BYTES);
  }

  public long traceIdHigh() {
    return idLong(SpanLink.TRACE_ID, SpanView.TRACE_ID_BYTES, 0);
  }

  public long traceIdLow() {
    return idLong(SpanLink.TRACE_ID, SpanView.TRACE_ID_BYTES, Long.BYTES);
  }

  /** Copies the linked span ID into {@code destination[0..8)}; false (and zeros) when empty. */
  public boolean copySpanId(byte[] destination) {
    return copyId(SpanLink.SPAN_ID, destination, SpanView.SPAN_ID_BYTES);
  }

  public long spanIdLong() {
    return idLong(SpanLink.SPAN_ID, SpanView.SPAN_ID_BYTES, 0);
  }

  public TextView traceState() {
    return text(SpanLink.TRACE_STATE, traceState);
  }

  /** Points {@code cursor} at the link's attributes. */
  public AttributeCursor attributes(AttributeCursor cursor) {
    return attributes(SpanLink.ATTRIBUTES, cursor);
  }

  public int droppedAttributesCount() {
    return (int) varint(SpanLink.DROPPED_ATTRIBUTES_COUNT);
  }

  public int flags() {
    return fixed32(SpanLink.FLAGS);
  }
}
