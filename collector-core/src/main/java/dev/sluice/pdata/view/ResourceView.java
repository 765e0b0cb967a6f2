package dev.sluice.pdata.view;

import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.MessageView;
import dev.sluice.pdata.internal.OtlpFields.Resource;
import dev.sluice.pdata.internal.OtlpFields.ResourceBlock;
import dev.sluice.pdata.internal.Overlay;
import dev.sluice.pdata.internal.ViewWire;

/**
 * The resource of a resource block (its {@code Resource} and the block's {@code schema_url}), read
 * in place. Handed to visitors by {@link BatchView}; valid only during that visit.
 */
public final class ResourceView extends MessageView {

  private final TextView schemaUrl = new TextView();

  @Internal
  public ResourceView() {
    super(Resource.DROPPED_ATTRIBUTES_COUNT);
  }

  /**
   * Wraps the block's header as the batch writes it: its replacement in {@code overlay}, if any.
   */
  @Internal
  public void wrap(OtlpIndex index, int resource, Overlay overlay) {
    if (overlay != null && overlay.resourceOffset(resource) >= 0) {
      wrapStoredHeader(
          overlay.bytes(),
          overlay.resourceOffset(resource),
          overlay.resourceLength(resource),
          ResourceBlock.RESOURCE,
          ResourceBlock.SCHEMA_URL,
          schemaUrl);
    } else {
      wrap(index, resource);
    }
  }

  @Internal
  public void wrap(OtlpIndex index, int resource) {
    clear();
    schemaUrl.clear();
    byte[] source = index.source();
    int first = index.resourceSegFirst(resource);
    for (int s = first; s < first + index.resourceSegCount(resource); s++) {
      int lengthAt = ViewWire.skipVarint(source, index.segOffset(s));
      if (index.segField(s) == ResourceBlock.RESOURCE) {
        wrapPayload(source, lengthAt);
      } else if (index.segField(s) == ResourceBlock.SCHEMA_URL) {
        int from = ViewWire.payloadStart(source, lengthAt);
        schemaUrl.wrap(source, from, ViewWire.payloadEnd(source, lengthAt) - from);
      }
    }
  }

  @Override
  @Internal
  public void release() {
    super.release();
    schemaUrl.release();
  }

  /** Points {@code cursor} at the resource's attributes. */
  public AttributeCursor attributes(AttributeCursor cursor) {
    return attributes(Resource.ATTRIBUTES, cursor);
  }

  public int droppedAttributesCount() {
    return (int) varint(Resource.DROPPED_ATTRIBUTES_COUNT);
  }

  /** The resource block's {@code schema_url}. */
  public TextView schemaUrl() {
    return schemaUrl;
  }
}
