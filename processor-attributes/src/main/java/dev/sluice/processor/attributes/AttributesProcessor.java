package dev.sluice.processor.attributes;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.attributeactions.UnconvertedLog;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.edit.AttributeActions;
import java.util.logging.Logger;

/**
 * Applies the actions to the attributes of every span, log record or data point that {@code
 * include} selects and {@code exclude} does not (data points by their metric's name and resource).
 */
final class AttributesProcessor implements BatchFunction<AttributesConfig> {
  /** One thread's matchers (they keep cursors and scratch buffers) and its visitor. */
  private final class Matching implements ItemVisitor {
    final ItemMatcher include;
    final ItemMatcher exclude;

    Matching(AttributesConfig config) {
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
      applyTo(item);
    }
  }

  private final AttributeActions actions;
  private final Signal signal;
  private final ItemVisitor everyItem = this::applyTo;
  // Null when neither include nor exclude is set: every item is edited.
  private final ThreadLocal<Matching> matching;
  private final UnconvertedLog unconverted;

  AttributesProcessor(
      AttributeActions actions, AttributesConfig config, Signal signal, Logger logger) {
    this.actions = actions;
    this.signal = signal;
    this.matching =
        config.include() == null && config.exclude() == null
            ? null
            : ThreadLocal.withInitial(() -> new Matching(config));
    this.unconverted = new UnconvertedLog(actions, logger);
  }

  @Override
  public Admission apply(Batch batch, AttributesConfig config) {
    batch.visit(matching == null ? everyItem : matching.get());
    unconverted.report();
    return Admission.ACCEPTED;
  }

  private void applyTo(BatchItem item) {
    switch (signal) {
      case TRACES -> item.editSpan().apply(actions);
      case LOGS -> item.editLogRecord().apply(actions);
      case METRICS -> item.editDataPoint().apply(actions);
    }
  }
}
