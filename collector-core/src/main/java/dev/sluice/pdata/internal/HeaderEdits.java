package dev.sluice.pdata.internal;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.internal.OtlpFields.InstrumentationScope;
import dev.sluice.pdata.internal.OtlpFields.Resource;

/**
 * The state behind a {@link ResourceEditor} or {@link ScopeEditor}: whether the visitor's call
 * edits the item's block (the first call at the block in the visit does, unless the visit replaced
 * the header already), and the changes, each written at once through the item's own kind of edits
 * ({@link ItemEdits}: one pass of the {@link MessageRewriter} over the header's message) as a
 * replacement of the block's header. One per {@link BatchItem} and kind, reused.
 */
public final class HeaderEdits {
  private final BatchItem item;
  private final boolean resource;
  // Each change is written as it is made: nothing is pending between calls.
  public final ItemEdits edits = new ItemEdits(null);
  private boolean bound;
  public boolean active;

  public HeaderEdits(BatchItem item, boolean resource) {
    this.item = item;
    this.resource = resource;
  }

  /** The visitor's call got the editor: decides, once per call, whether it edits the block. */
  public void bind() {
    if (bound) {
      return;
    }
    bound = true;
    active =
        resource
            ? item.firstLookAtResource() && !item.resourceReplacedInThisVisit()
            : item.firstLookAtScope() && !item.scopeReplacedInThisVisit();
    edits.bind(resource ? Resource.ATTRIBUTES : InstrumentationScope.ATTRIBUTES);
  }

  /** The call ended: the editor refuses changes until it is handed out again. */
  public void unbind() {
    if (bound) {
      bound = false;
      edits.discard();
      edits.unbind();
    }
  }

  /** The edits for the next change, checked as valid in this call. */
  public ItemEdits edits(String editor) {
    edits.check(editor);
    return edits;
  }

  /** Whether this call edits the block's header (else every change is checked, then forgotten). */
  public boolean active() {
    return active;
  }

  /** Writes the change just asked for into the block's header, when this call edits it. */
  public void write() {
    if (!active) {
      edits.discard();
      return;
    }
    item.childOf(resource);
    ProtoWriter written = edits.rewrite(item.childArray, item.childOffset, item.childLength);
    item.childArray = null;
    if (written == null) {
      return;
    }
    if (resource) {
      item.replaceResource(written.array(), 0, written.size());
    } else {
      item.replaceScope(written.array(), 0, written.size());
    }
  }

  /** Whether the item's resource block has no schema URL (or an empty one). */
  public boolean schemaUrlAbsent() {
    return item.resourceView().schemaUrl().length() == 0;
  }

  /** Writes the block's schema URL, {@code schemaUrl} (UTF-8, not empty), in place of its own. */
  public void writeSchemaUrl(byte[] schemaUrl) {
    item.childOf(true);
    byte[] message = item.childArray;
    item.childArray = null;
    item.replaceResource(message, item.childOffset, item.childLength, schemaUrl);
  }
}
