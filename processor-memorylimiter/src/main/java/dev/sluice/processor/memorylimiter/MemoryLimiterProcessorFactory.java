package dev.sluice.processor.memorylimiter;

import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.FunctionProcessorFactory;
import dev.sluice.pdata.Signal;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/** The {@code memory_limiter} processor type. */
public final class MemoryLimiterProcessorFactory
    implements FunctionProcessorFactory<MemoryLimiterConfig> {
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
  public BatchFunction<MemoryLimiterConfig> createFunction(
      ComponentSettings settings, MemoryLimiterConfig config, Signal signal) {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    return new MemoryLimiter(
        config,
        () -> memory.getHeapMemoryUsage().getUsed(),
        Runtime.getRuntime().maxMemory(),
        settings.scheduler(),
        settings.logger());
  }
}
