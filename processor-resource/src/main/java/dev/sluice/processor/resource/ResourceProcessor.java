package dev.sluice.processor.resource;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.attributeactions.Rewriting;
import dev.sluice.pdata.otlp.AttributeActions;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.ItemVisitor;
import java.util.logging.Logger;

/**
 * Applies the actions to the attributes of every resource in a batch, once per resource block: a
 * resource that two scope blocks (or two slices of one request) share is changed once, and every
 * item under it is written with the change.
 */
final class ResourceProcessor implements BatchFunction<ResourceConfig> {
  /** One thread's rewriter and its visitor, made once. */
  private static final class Worker {
    final Rewriting rewriting;
    final ItemVisitor visitor;

    Worker(AttributeActions actions) {
      rewriting = new Rewriting(actions);
      visitor = item -> rewriting.rewriter().editResource(item);
    }
  }

  private final ThreadLocal<Worker> workers;
  private final Rewriting.Logs logs;

  ResourceProcessor(AttributeActions actions, Logger logger) {
    this.workers = ThreadLocal.withInitial(() -> new Worker(actions));
    this.logs = new Rewriting.Logs(logger, "resources");
  }

  @Override
  public Admission apply(Batch batch, ResourceConfig config) {
    Worker worker = workers.get();
    // One call per slice, not per item: every item of a slice shares its resource.
    batch.visitHeaders(worker.visitor);
    worker.rewriting.report(logs);
    return Admission.ACCEPTED;
  }
}
