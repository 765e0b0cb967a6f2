package dev.sluice.pdata.edit;

import dev.sluice.pdata.internal.HeaderEdits;
import dev.sluice.pdata.internal.Internal;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Changes the attributes and the schema URL of the resource of the item a visit is at, for every
 * item of its resource block in the batch ({@link HeaderEditor} says how): {@link
 * BatchItem#editResource()} hands it out.
 */
public final class ResourceEditor extends HeaderEditor<ResourceEditor> {
  // The schema URL last asked for and its UTF-8, kept for the next block.
  private String schemaUrl;
  private byte[] schemaUrlBytes;

  @Internal
  public ResourceEditor(HeaderEdits header) {
    super(header, "ResourceEditor");
  }

  @Override
  ResourceEditor self() {
    return this;
  }

  /**
   * Sets the block's schema URL to {@code schemaUrl} where the block has none (an empty one);
   * nothing for an empty {@code schemaUrl}.
   */
  public ResourceEditor setSchemaUrlIfAbsent(String schemaUrl) {
    Objects.requireNonNull(schemaUrl, "a schema URL");
    header.edits("ResourceEditor");
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
