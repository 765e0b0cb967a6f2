package dev.sluice.processor.resource;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.attributeactions.UnconvertedLog;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.edit.AttributeActions;
import java.util.logging.Logger;

/**
 * Applies the actions to the attributes of every resource in a batch, once per resource block: a
 * resource that two scope blocks (or two slices of one request) share is changed once, and every
 * item under it is written with the change.
 */
final class ResourceProcessor implements BatchFunction<ResourceConfig> {
  private final ItemVisitor editResource;
  private final UnconvertedLog unconverted;

  ResourceProcessor(AttributeActions actions, Logger logger) {
    this.editResource = item -> item.editResource().apply(actions);
    this.unconverted = new UnconvertedLog(actions, logger);
  }

  @Override
  public Admission apply(Batch batch, ResourceConfig config) {
    // One call per slice, not per item: every item of a slice shares its resource.
    batch.visitHeaders(editResource);
    unconverted.report();
    return Admission.ACCEPTED;
  }
}
