package dev.sluice.pdata.internal;

/** A small nested message read by its parent view (a span's status, a histogram's buckets). */
public final class PlainMessage extends MessageView {
  public PlainMessage(int maxFieldNumber) {
    super(maxFieldNumber);
  }

  /** Wraps the message field of {@code parent} (empty when the parent has none). */
  public PlainMessage wrapField(MessageView parent, int field) {
    int p = parent.at(field);
    if (p < 0) {
      clear();
    } else {
      wrapPayload(parent.bytes, p);
    }
    return this;
  }
}
