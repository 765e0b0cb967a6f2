package dev.sluice.processor.resourcedetection;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchFunction;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeValue;
import dev.sluice.pdata.edit.ResourceEditor;
import java.util.Map;

/**
 * Sets the detected attributes on every resource of a batch: each resource block is re-encoded once
 * per batch, as its original bytes plus the detected entries ({@link ResourceEditor#apply}); spans,
 * log records and data points are not touched. With {@code override} the detected attributes
 * replace the resource's own (upsert), without it they only fill in missing keys (insert). The
 * detected schema URL is written into each resource block that has none; a block's own schema URL
 * wins, as in Go. Applying the same attributes again gives the same bytes, so a batch offered again
 * is safe.
 *
 * <p>Nothing is set until {@link #set} is called with what detection found; the actions are built
 * once there, and batches may then come from several threads at once.
 */
final class ResourceMerge implements BatchFunction<ResourceDetectionConfig> {
  /** Edits each resource block the visit reaches; null until detection has found something. */
  private volatile ItemVisitor merge;

  /**
   * From now on, sets {@code attributes} (in their order) on every resource, and {@code schemaUrl}
   * (when not empty) on every resource block without one.
   */
  void set(Map<String, String> attributes, String schemaUrl, boolean override) {
    if (attributes.isEmpty() && schemaUrl.isEmpty()) {
      merge = null;
      return;
    }
    AttributeActions.Builder builder = AttributeActions.builder();
    for (Map.Entry<String, String> attribute : attributes.entrySet()) {
      AttributeValue value = AttributeValue.string(attribute.getValue());
      if (override) {
        builder.upsert(attribute.getKey(), value);
      } else {
        builder.insert(attribute.getKey(), value);
      }
    }
    AttributeActions actions = builder.build();
    boolean anyAttribute = actions.size() > 0;
    merge =
        item -> {
          ResourceEditor resource = item.editResource();
          if (anyAttribute) {
            resource.apply(actions);
          }
          resource.setSchemaUrlIfAbsent(schemaUrl);
        };
  }

  @Override
  public Admission apply(Batch batch, ResourceDetectionConfig config) {
    ItemVisitor current = merge;
    if (current != null) {
      // One call per slice, and each resource block edited once.
      batch.visitHeaders(current);
    }
    return Admission.ACCEPTED;
  }
}
