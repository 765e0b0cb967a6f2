package dev.sluice.processor.memorylimiter;

import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.ProcessorFactory;
import dev.sluice.pdata.otlp.Signal;

/** The {@code memory_limiter} processor type. */
public final class MemoryLimiterProcessorFactory implements ProcessorFactory<MemoryLimiterConfig> {
  @Override
  public String type() {
    return "memory_limiter";
  }

  @Override
  public Class<MemoryLimiterConfig> configType() {
    return MemoryLimiterConfig.class;
  }

  @Override
  public MemoryLimiterConfig defaultConfig() {
    return MemoryLimiterConfig.DEFAULT;
  }

  @Override
  public Processor create(
      ComponentSettings settings, MemoryLimiterConfig config, Signal signal, BatchConsumer next) {
    return new MemoryLimiterProcessor(settings, config, next);
  }
}
