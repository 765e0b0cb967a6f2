package dev.sluice.processor.attributes;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.attributeactions.Rewriting;
import dev.sluice.pdata.otlp.AttributeActions;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.BatchItem;
import dev.sluice.pdata.otlp.ItemVisitor;
import dev.sluice.pdata.otlp.Signal;
import java.util.logging.Logger;

/**
 * Applies the actions to the attributes of every span, log record or data point that {@code
 * include} selects and {@code exclude} does not (data points by their metric's name and resource).
 */
final class AttributesProcessor implements BatchFunction<AttributesConfig> {
  /** One thread's rewriter, matchers and visitor, made once. */
  private static final class Worker implements ItemVisitor {
    final Rewriting rewriting;
    final ItemMatcher include;
    final ItemMatcher exclude;

    Worker(AttributeActions actions, AttributesConfig config, Signal signal) {
      rewriting = new Rewriting(actions);
      include = config.include() == null ? null : new ItemMatcher(config.include(), signal);
      exclude = config.exclude() == null ? null : new ItemMatcher(config.exclude(), signal);
    }

    @Override
    public void visit(BatchItem item) {
      if (include != null && !include.matches(item)) {
        return;
      }
      if (exclude != null && exclude.matches(item)) {
        return;
      }
      rewriting.rewriter().editItem(item);
    }
  }

  private final ThreadLocal<Worker> workers;
  private final Rewriting.Logs logs;

  AttributesProcessor(
      AttributeActions actions, AttributesConfig config, Signal signal, Logger logger) {
    this.workers = ThreadLocal.withInitial(() -> new Worker(actions, config, signal));
    this.logs = new Rewriting.Logs(logger, signal.unitName());
  }

  @Override
  public Admission apply(Batch batch, AttributesConfig config) {
    Worker worker = workers.get();
    batch.visit(worker);
    worker.rewriting.report(logs);
    return Admission.ACCEPTED;
  }
}
