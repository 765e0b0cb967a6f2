package dev.sluice.pdata.view;

import dev.sluice.pdata.internal.MessageView;
import dev.sluice.pdata.internal.OtlpFields.ArrayValue;
import dev.sluice.pdata.internal.ViewWire;
import dev.sluice.pdata.internal.WireType;

/**
 * Walks the elements of an {@code array_value} in place ({@link AnyValueView#array}). Made once by
 * the caller; valid as long as the value it was pointed from (see {@link BatchView}).
 */
public final class ArrayCursor {
  private static final int VALUES_TAG = WireType.tag(ArrayValue.VALUES, WireType.LEN);

  private byte[] bytes = MessageView.NO_BYTES;
  private int from;
  private int end;
  private int position;
  private final AnyValueView value = new AnyValueView();

  public ArrayCursor() {}

  void wrap(byte[] bytes, int from, int end) {
    if (this.bytes != bytes) {
      this.bytes = bytes;
    }
    this.from = from;
    this.end = end;
    reset();
  }

  /** Back before the first element. */
  public void reset() {
    position = from;
    value.clear();
  }

  /** Moves to the next element; false (and an empty value) after the last. */
  public boolean next() {
    int p = position < end ? ViewWire.next(bytes, position, end, VALUES_TAG) : -1;
    if (p < 0) {
      position = end;
      value.clear();
      return false;
    }
    value.wrapPayload(bytes, p);
    position = ViewWire.payloadEnd(bytes, p);
    return true;
  }

  /** The current element. */
  public AnyValueView value() {
    return value;
  }

  /** Elements in the array; walks it, leaves the cursor where it was. */
  public int count() {
    int count = 0;
    int p = ViewWire.next(bytes, from, end, VALUES_TAG);
    while (p >= 0) {
      count++;
      p = ViewWire.next(bytes, ViewWire.payloadEnd(bytes, p), end, VALUES_TAG);
    }
    return count;
  }
}
