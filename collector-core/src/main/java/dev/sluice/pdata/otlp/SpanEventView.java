package dev.sluice.pdata.otlp;

/**
 * A cursor over a span's events ({@link SpanView#events}), reading the current one in place. Made
 * once by the caller; valid as long as the span view that pointed it (see {@link BatchView}).
 */
public final class SpanEventView extends RepeatedView {
  private static final int TIME_UNIX_NANO = 1;
  private static final int NAME = 2;
  private static final int ATTRIBUTES = 3;
  private static final int DROPPED_ATTRIBUTES_COUNT = 4;

  private final TextView name = new TextView();

  public SpanEventView() {
    super(DROPPED_ATTRIBUTES_COUNT);
  }

  public long timeUnixNano() {
    return fixed64(TIME_UNIX_NANO);
  }

  public TextView name() {
    return text(NAME, name);
  }

  public boolean nameEquals(CharSequence text) {
    return name().contentEquals(text);
  }

  /** Points {@code cursor} at the event's attributes. */
  public AttributeCursor attributes(AttributeCursor cursor) {
    return attributes(ATTRIBUTES, cursor);
  }

  public int droppedAttributesCount() {
    return (int) varint(DROPPED_ATTRIBUTES_COUNT);
  }
}
