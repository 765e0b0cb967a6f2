package dev.sluice.pdata.edit;

import dev.sluice.pdata.internal.HeaderEdits;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.ItemEdits;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Changes the attributes of the resource of the item a visit is at, for every item of its resource
 * block in the batch: {@link BatchItem#editResource()} hands it out. A block is changed once per
 * visit: in the first visitor call at it (a {@link Batch#visitHeaders} shows one item per slice, so
 * several slices of one request can share the block), and not again once the visit has replaced it;
 * in other calls every change is checked and then ignored ({@link #changesBlock()} tells which).
 *
 * <p>Each change is written at once, as one pass of the data model's rewrite engine over the
 * resource message, every field not changed copied as bytes; a change that leaves its bytes as they
 * were writes nothing. Attributes are changed as on a {@link SpanEditor}: a put replaces the value
 * of the key's first entry where it is (later entries with the key go) or appends an entry, a
 * remove takes every entry with the key.
 *
 * <p>One per thread's visits, reused: valid only during the visitor's call that got it.
 */
public final class ResourceEditor {
  private static final String EDITOR = "ResourceEditor";

  private final HeaderEdits header;
  // The schema URL last asked for and its UTF-8, kept for the next block.
  private String schemaUrl;
  private byte[] schemaUrlBytes;

  @Internal
  public ResourceEditor(HeaderEdits header) {
    this.header = header;
  }

  /**
   * Whether this call changes the block (the first call at it in the visit), or ignores changes.
   */
  public boolean changesBlock() {
    header.edits(EDITOR);
    return header.active();
  }

  public ResourceEditor putAttribute(String key, String value) {
    ItemEdits e = header.edits(EDITOR);
    e.putAttribute(e.key(key), e.stringValue(value));
    header.write();
    return this;
  }

  public ResourceEditor putAttribute(String key, boolean value) {
    ItemEdits e = header.edits(EDITOR);
    e.putAttribute(e.key(key), e.boolValue(value));
    header.write();
    return this;
  }

  public ResourceEditor putAttribute(String key, long value) {
    ItemEdits e = header.edits(EDITOR);
    e.putAttribute(e.key(key), e.intValue(value));
    header.write();
    return this;
  }

  public ResourceEditor putAttribute(String key, double value) {
    ItemEdits e = header.edits(EDITOR);
    e.putAttribute(e.key(key), e.doubleValue(value));
    header.write();
    return this;
  }

  /** A {@code bytes_value} attribute. */
  public ResourceEditor putAttribute(String key, byte[] value) {
    ItemEdits e = header.edits(EDITOR);
    e.putAttribute(e.key(key), e.bytesValue(value));
    header.write();
    return this;
  }

  /** Removes every attribute with the key. */
  public ResourceEditor removeAttribute(String key) {
    ItemEdits e = header.edits(EDITOR);
    e.removeAttribute(e.key(key));
    header.write();
    return this;
  }

  /** Applies {@code actions} to the attributes, in order. */
  public ResourceEditor apply(AttributeActions actions) {
    header.edits(EDITOR).applyActions(EDITOR, actions);
    header.write();
    return this;
  }

  /**
   * Sets the block's schema URL to {@code schemaUrl} where the block has none (an empty one);
   * nothing for an empty {@code schemaUrl}.
   */
  public ResourceEditor setSchemaUrlIfAbsent(String schemaUrl) {
    Objects.requireNonNull(schemaUrl, "a schema URL");
    header.edits(EDITOR);
    if (!header.active() || schemaUrl.isEmpty()) {
      return this;
    }
    if (!schemaUrl.equals(this.schemaUrl)) {
      this.schemaUrlBytes = schemaUrl.getBytes(StandardCharsets.UTF_8);
      this.schemaUrl = schemaUrl;
    }
    if (header.schemaUrlAbsent()) {
      header.writeSchemaUrl(schemaUrlBytes);
    }
    return this;
  }
}
