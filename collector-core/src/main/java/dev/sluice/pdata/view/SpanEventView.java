package dev.sluice.pdata.view;

import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.OtlpFields.SpanEvent;
import dev.sluice.pdata.internal.RepeatedView;

/**
 * A cursor over a span's events ({@link SpanView#events}), reading the current one in place. Made
 * once by the caller; valid as long as the span view that pointed it (see {@link BatchView}).
 */
public final class SpanEventView extends RepeatedView {

  private final TextView name = new TextView();

  public SpanEventView() {
    super(SpanEvent.DROPPED_ATTRIBUTES_COUNT);
  }

  @Override
  @Internal
  public void release() {
    super.release();
    name.release();
  }

  public long timeUnixNano() {
    return fixed64(SpanEvent.TIME_UNIX_NANO);
  }

  public TextView name() {
    return text(SpanEvent.NAME, name);
  }

  public boolean nameEquals(CharSequence text) {
    return name().contentEquals(text);
  }

  /** Points {@code cursor} at the event's attributes. */
  public AttributeCursor attributes(AttributeCursor cursor) {
    return attributes(SpanEvent.ATTRIBUTES, cursor);
  }

  public int droppedAttributesCount() {
    return (int) varint(SpanEvent.DROPPED_ATTRIBUTES_COUNT);
  }
}
