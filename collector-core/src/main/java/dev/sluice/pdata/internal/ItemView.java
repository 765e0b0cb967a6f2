package dev.sluice.pdata.internal;

import dev.sluice.pdata.codec.OtlpIndex;

/**
 * A view of one item of an indexed request, a span or a log record: the request's bytes at the
 * item's row. Keeps which request and row it reads, so that an edit can name the item it is on.
 */
public abstract class ItemView extends MessageView {
  private OtlpIndex index;
  private int item;

  @Internal
  public ItemView(int maxFieldNumber) {
    super(maxFieldNumber);
  }

  /** The request the view reads, and the item's row in its index: for edits of this item. */
  OtlpIndex index() {
    return index;
  }

  int item() {
    return item;
  }

  /**
   * The wrapped bytes are a span as the validator passed it in its span loop ({@link
   * BatchItem#commonSpan}); set by the item after wrapping, false after any other wrap.
   */
  @Internal public boolean commonSpan;

  /** Wraps the item as the batch writes it: its replacement in {@code overlay}, if it has one. */
  @Internal
  public void wrap(OtlpIndex index, int item, Overlay overlay) {
    if (overlay != null && overlay.unitOffset(item) >= 0) {
      byte[] replaced = overlay.bytes();
      wrapAt(index, item, replaced, overlay.unitOffset(item));
    } else {
      wrapAt(index, item, index.source(), index.itemStart(item));
    }
  }

  /** Wraps the item's message, without tag or length: {@code bytes[from, to)}. */
  @Internal
  public void wrapMessage(OtlpIndex index, int item, byte[] bytes, int from, int to) {
    if (this.index != index) {
      this.index = index;
    }
    this.item = item;
    this.commonSpan = false;
    wrapRegion(bytes, from, to);
  }

  /** Wraps the item whose field (tag first) starts at {@code fieldStart} in {@code bytes}. */
  void wrapAt(OtlpIndex index, int item, byte[] bytes, int fieldStart) {
    if (this.index != index) {
      this.index = index; // stored only when it changes: a store of a reference has a GC barrier
    }
    this.item = item;
    this.commonSpan = false;
    wrapPayload(bytes, ViewWire.skipVarint(bytes, fieldStart));
  }

  @Override
  @Internal
  public void release() {
    super.release();
    index = null;
  }
}
