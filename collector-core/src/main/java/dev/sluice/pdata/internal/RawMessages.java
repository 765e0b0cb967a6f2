package dev.sluice.pdata.internal;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.view.AttributeCursor;

/**
 * The encoded bytes behind a visited item's block headers, and cursors over caller-owned encoded
 * entries: for editors that re-encode a {@code Resource} or {@code InstrumentationScope} with
 * values known only while they run (OTTL's {@code set(resource.attributes["k"], ...)}), and that
 * keep a list of {@code KeyValue}s of their own. Not thread-safe; one per editing thread.
 */
public final class RawMessages {
  private byte[] array = MessageView.NO_BYTES;
  private int offset;
  private int length;

  /**
   * Points at the current {@code Resource} message of the item's block (a replacement made earlier
   * included; empty when the block has none). Valid until the visitor returns or the next replace.
   */
  public RawMessages resourceOf(BatchItem item) {
    item.childOf(true);
    return take(item);
  }

  /** As {@link #resourceOf}, for the block's {@code InstrumentationScope}. */
  public RawMessages scopeOf(BatchItem item) {
    item.childOf(false);
    return take(item);
  }

  private RawMessages take(BatchItem item) {
    array = item.childArray;
    offset = item.childOffset;
    length = item.childLength;
    item.childArray = null;
    return this;
  }

  public byte[] array() {
    return array;
  }

  public int offset() {
    return offset;
  }

  public int length() {
    return length;
  }

  /** Lets go of the bytes last pointed at. */
  public void clear() {
    array = MessageView.NO_BYTES;
    offset = 0;
    length = 0;
  }

  /**
   * Points {@code cursor} at the {@code fieldNumber} entries (each a {@code KeyValue}) of {@code
   * bytes[from, end)}, which the caller owns and keeps unchanged while it reads them.
   */
  public static AttributeCursor entries(
      AttributeCursor cursor, byte[] bytes, int from, int end, int fieldNumber) {
    cursor.wrap(bytes, from, end, fieldNumber);
    return cursor;
  }
}
