package dev.sluice.core.pipeline;

import dev.sluice.core.component.BatchConsumer;
import dev.sluice.core.component.ComponentSettings;
import dev.sluice.core.component.Processor;
import dev.sluice.core.component.ProcessorFactory;
import dev.sluice.core.otlp.Signal;

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
