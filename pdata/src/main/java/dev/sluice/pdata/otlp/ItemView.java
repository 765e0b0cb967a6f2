package dev.sluice.pdata.otlp;

/**
 * A view of one item of an indexed request, a span or a log record: the request's bytes at the
 * item's row. Keeps which request and row it reads, so that an edit can name the item it is on.
 */
abstract class ItemView extends MessageView {
  private OtlpIndex index;
  private int item;

  ItemView(int maxFieldNumber) {
    super(maxFieldNumber);
  }

  /** The request the view reads, and the item's row in its index: for edits of this item. */
  OtlpIndex index() {
    return index;
  }

  int item() {
    return item;
  }

  void wrap(OtlpIndex index, int item) {
    if (this.index != index) {
      this.index = index; // stored only when it changes: a store of a reference has a GC barrier
    }
    this.item = item;
    byte[] source = index.source();
    wrapPayload(source, ViewWire.skipVarint(source, index.itemStart(item)));
  }

  @Override
  void release() {
    super.release();
    index = null;
  }
}
