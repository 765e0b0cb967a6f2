package dev.sluice.pdata.edit;

import dev.sluice.pdata.internal.HeaderEdits;
import dev.sluice.pdata.internal.ItemEdits;

/**
 * What {@link ResourceEditor} and {@link ScopeEditor} share: the attributes of the header (the
 * resource or the instrumentation scope) of the item a visit is at, changed for every item of its
 * block in the batch. A block is changed once per visit: in the first visitor call at it (a {@link
 * Batch#visitHeaders} shows one item per slice, so several slices of one request can share the
 * block), and not again once the visit has replaced it; in other calls every change is checked and
 * then ignored ({@link #changesBlock()} tells which).
 *
 * <p>Each change is written at once, as one pass of the data model's rewrite engine over the header
 * message, every field not changed copied as bytes; a change that leaves its bytes as they were
 * writes nothing. Attributes are changed as on a {@link SpanEditor}: a put replaces the value of
 * the key's first entry where it is (later entries with the key go) or appends an entry, a remove
 * takes every entry with the key.
 *
 * <p>One per thread's visits, reused: valid only during the visitor's call that got it.
 *
 * @param <E> the editor's own type, which every change returns
 */
public abstract class HeaderEditor<E extends HeaderEditor<E>> {
  /** The header's edits. */
  final HeaderEdits header;

  private final String editor;

  HeaderEditor(HeaderEdits header, String editor) {
    this.header = header;
    this.editor = editor;
  }

  abstract E self();

  /**
   * Whether this call changes the block (the first call at it in the visit), or ignores changes.
   */
  public boolean changesBlock() {
    header.edits(editor);
    return header.active();
  }

  public final E putAttribute(String key, String value) {
    ItemEdits e = header.edits(editor);
    e.putAttribute(e.key(key), e.stringValue(value));
    header.write();
    return self();
  }

  /**
   * A string attribute given as its UTF-8 bytes {@code utf8[offset, offset + length)}, for a writer
   * that builds the text in a reused buffer; checked to be UTF-8.
   */
  public final E putStringAttribute(String key, byte[] utf8, int offset, int length) {
    ItemEdits e = header.edits(editor);
    e.putAttribute(e.key(key), e.stringValue(utf8, offset, length));
    header.write();
    return self();
  }

  public final E putAttribute(String key, boolean value) {
    ItemEdits e = header.edits(editor);
    e.putAttribute(e.key(key), e.boolValue(value));
    header.write();
    return self();
  }

  public final E putAttribute(String key, long value) {
    ItemEdits e = header.edits(editor);
    e.putAttribute(e.key(key), e.intValue(value));
    header.write();
    return self();
  }

  public final E putAttribute(String key, double value) {
    ItemEdits e = header.edits(editor);
    e.putAttribute(e.key(key), e.doubleValue(value));
    header.write();
    return self();
  }

  /** A {@code bytes_value} attribute. */
  public final E putAttribute(String key, byte[] value) {
    ItemEdits e = header.edits(editor);
    e.putAttribute(e.key(key), e.bytesValue(value));
    header.write();
    return self();
  }

  /** Removes every attribute with the key. */
  public final E removeAttribute(String key) {
    ItemEdits e = header.edits(editor);
    e.removeAttribute(e.key(key));
    header.write();
    return self();
  }

  /** Applies {@code actions} to the attributes, in order. */
  public final E apply(AttributeActions actions) {
    header.edits(editor).applyActions(editor, actions);
    header.write();
    return self();
  }
}
