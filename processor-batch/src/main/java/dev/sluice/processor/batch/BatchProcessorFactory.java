package dev.sluice.processor.batch;

import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.ProcessorFactory;
import dev.sluice.pdata.Signal;

/** The {@code batch} processor type. */
public final class BatchProcessorFactory implements ProcessorFactory<BatchConfig> {
  @Override
  public String type() {
    return "batch";
  }

  @Override
  public Class<BatchConfig> configType() {
    return BatchConfig.class;
  }

  @Override
  public BatchConfig defaultConfig() {
    return BatchConfig.DEFAULT;
  }

  @Override
  public Processor create(
      ComponentSettings settings, BatchConfig config, Signal signal, BatchConsumer next) {
    return new BatchProcessor(settings, config, signal, next);
  }
}
