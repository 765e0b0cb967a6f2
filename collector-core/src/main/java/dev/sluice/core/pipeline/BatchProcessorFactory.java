package dev.sluice.core.pipeline;

import dev.sluice.core.component.BatchConsumer;
import dev.sluice.core.component.ComponentSettings;
import dev.sluice.core.component.Processor;
import dev.sluice.core.component.ProcessorFactory;
import dev.sluice.core.otlp.Signal;

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
