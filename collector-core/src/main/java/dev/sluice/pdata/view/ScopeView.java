package dev.sluice.pdata.view;

import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.MessageView;
import dev.sluice.pdata.internal.OtlpFields.InstrumentationScope;
import dev.sluice.pdata.internal.OtlpFields.ScopeBlock;
import dev.sluice.pdata.internal.Overlay;
import dev.sluice.pdata.internal.ViewWire;

/**
 * The instrumentation scope of a scope block (its {@code InstrumentationScope} and the block's
 * {@code schema_url}), read in place. Handed to visitors by {@link BatchView}; valid only during
 * that visit.
 */
public final class ScopeView extends MessageView {

  private final TextView name = new TextView();
  private final TextView version = new TextView();
  private final TextView schemaUrl = new TextView();

  @Internal
  public ScopeView() {
    super(InstrumentationScope.DROPPED_ATTRIBUTES_COUNT);
  }

  /**
   * Wraps the block's header as the batch writes it: its replacement in {@code overlay}, if any.
   */
  @Internal
  public void wrap(OtlpIndex index, int scope, Overlay overlay) {
    if (overlay != null && overlay.scopeOffset(scope) >= 0) {
      wrapStoredHeader(
          overlay.bytes(),
          overlay.scopeOffset(scope),
          overlay.scopeLength(scope),
          ScopeBlock.SCOPE,
          ScopeBlock.SCHEMA_URL,
          schemaUrl);
    } else {
      wrap(index, scope);
    }
  }

  @Internal
  public void wrap(OtlpIndex index, int scope) {
    clear();
    schemaUrl.clear();
    byte[] source = index.source();
    int first = index.scopeSegFirst(scope);
    for (int s = first; s < first + index.scopeSegCount(scope); s++) {
      int lengthAt = ViewWire.skipVarint(source, index.segOffset(s));
      if (index.segField(s) == ScopeBlock.SCOPE) {
        wrapPayload(source, lengthAt);
      } else if (index.segField(s) == ScopeBlock.SCHEMA_URL) {
        int from = ViewWire.payloadStart(source, lengthAt);
        schemaUrl.wrap(source, from, ViewWire.payloadEnd(source, lengthAt) - from);
      }
    }
  }

  @Override
  @Internal
  public void release() {
    super.release();
    name.release();
    version.release();
    schemaUrl.release();
  }

  public TextView name() {
    return text(InstrumentationScope.NAME, name);
  }

  public TextView version() {
    return text(InstrumentationScope.VERSION, version);
  }

  /** Points {@code cursor} at the scope's attributes. */
  public AttributeCursor attributes(AttributeCursor cursor) {
    return attributes(InstrumentationScope.ATTRIBUTES, cursor);
  }

  public int droppedAttributesCount() {
    return (int) varint(InstrumentationScope.DROPPED_ATTRIBUTES_COUNT);
  }

  /** The scope block's {@code schema_url}. */
  public TextView schemaUrl() {
    return schemaUrl;
  }
}
