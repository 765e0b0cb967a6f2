package dev.sluice.pdata.internal;

/** A view that is also a cursor over the occurrences of a repeated message field of its parent. */
public abstract class RepeatedView extends MessageView {
  private byte[] parent = NO_BYTES;
  private int from;
  private int parentEnd;
  private int tag;
  private int position;

  @Internal
  public RepeatedView(int maxFieldNumber) {
    super(maxFieldNumber);
  }

  @Internal
  public final void point(byte[] parent, int from, int parentEnd, int fieldNumber) {
    if (this.parent != parent) {
      this.parent = parent;
    }
    this.from = from;
    this.parentEnd = parentEnd;
    this.tag = WireType.tag(fieldNumber, WireType.LEN);
    reset();
  }

  /**
   * Reads the one element whose payload is {@code bytes[start, end)}, shown on its own (to a
   * predicate that decides it): {@link #next()} moves past it.
   */
  final void wrapElement(byte[] bytes, int start, int end) {
    if (parent != bytes) {
      parent = bytes;
    }
    from = end;
    parentEnd = end;
    position = end;
    wrapRegion(bytes, start, end);
  }

  @Override
  @Internal
  public void release() {
    super.release();
    parent = NO_BYTES;
    from = 0;
    parentEnd = 0;
    position = 0;
  }

  /** Back before the first element. */
  public final void reset() {
    position = from;
    clear();
  }

  /** Moves to the next element and reads it from now on; false (and empty) after the last. */
  public final boolean next() {
    int p = position < parentEnd ? ViewWire.next(parent, position, parentEnd, tag) : -1;
    if (p < 0) {
      position = parentEnd;
      clear();
      return false;
    }
    wrapPayload(parent, p);
    position = end;
    return true;
  }

  /** Elements in the list; walks it, leaves the cursor where it was. */
  public final int count() {
    int count = 0;
    int p = ViewWire.next(parent, from, parentEnd, tag);
    while (p >= 0) {
      count++;
      p = ViewWire.next(parent, ViewWire.payloadEnd(parent, p), parentEnd, tag);
    }
    return count;
  }
}
