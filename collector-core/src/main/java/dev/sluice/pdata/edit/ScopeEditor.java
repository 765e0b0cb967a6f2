package dev.sluice.pdata.edit;

import dev.sluice.pdata.internal.HeaderEdits;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.ItemEdits;

/**
 * Changes the attributes of the instrumentation scope of the item a visit is at, for every item of
 * its scope block in the batch: {@link BatchItem#editScope()} hands it out. A block is changed once
 * per visit: in the first visitor call at it (a {@link Batch#visitHeaders} shows one item per
 * slice, so several slices of one request can share the block), and not again once the visit has
 * replaced it; in other calls every change is checked and then ignored ({@link #changesBlock()}
 * tells which).
 *
 * <p>Each change is written at once, as one pass of the data model's rewrite engine over the
 * instrumentation scope message, every field not changed copied as bytes; a change that leaves its
 * bytes as they were writes nothing. Attributes are changed as on a {@link SpanEditor}: a put
 * replaces the value of the key's first entry where it is (later entries with the key go) or
 * appends an entry, a remove takes every entry with the key.
 *
 * <p>One per thread's visits, reused: valid only during the visitor's call that got it.
 */
public final class ScopeEditor {
  private static final String EDITOR = "ScopeEditor";

  private final HeaderEdits header;

  @Internal
  public ScopeEditor(HeaderEdits header) {
    this.header = header;
  }

  /**
   * Whether this call changes the block (the first call at it in the visit), or ignores changes.
   */
  public boolean changesBlock() {
    header.edits(EDITOR);
    return header.active();
  }

  public ScopeEditor putAttribute(String key, String value) {
    ItemEdits e = header.edits(EDITOR);
    e.putAttribute(e.key(key), e.stringValue(value));
    header.write();
    return this;
  }

  public ScopeEditor putAttribute(String key, boolean value) {
    ItemEdits e = header.edits(EDITOR);
    e.putAttribute(e.key(key), e.boolValue(value));
    header.write();
    return this;
  }

  public ScopeEditor putAttribute(String key, long value) {
    ItemEdits e = header.edits(EDITOR);
    e.putAttribute(e.key(key), e.intValue(value));
    header.write();
    return this;
  }

  public ScopeEditor putAttribute(String key, double value) {
    ItemEdits e = header.edits(EDITOR);
    e.putAttribute(e.key(key), e.doubleValue(value));
    header.write();
    return this;
  }

  /** A {@code bytes_value} attribute. */
  public ScopeEditor putAttribute(String key, byte[] value) {
    ItemEdits e = header.edits(EDITOR);
    e.putAttribute(e.key(key), e.bytesValue(value));
    header.write();
    return this;
  }

  /** Removes every attribute with the key. */
  public ScopeEditor removeAttribute(String key) {
    ItemEdits e = header.edits(EDITOR);
    e.removeAttribute(e.key(key));
    header.write();
    return this;
  }

  /** Applies {@code actions} to the attributes, in order. */
  public ScopeEditor apply(AttributeActions actions) {
    header.edits(EDITOR).applyActions(EDITOR, actions);
    header.write();
    return this;
  }
}
