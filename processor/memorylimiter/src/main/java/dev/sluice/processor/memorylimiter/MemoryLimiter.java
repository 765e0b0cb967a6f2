package dev.sluice.processor.memorylimiter;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.otlp.Batch;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.logging.Level;

/**
 * The {@code memory_limiter} processor: refuses data while the JVM heap in use is above the soft
 * limit, read at most once per {@code check_interval}. Sluice's pipelines are also bounded by the
 * collector's memory budget; this keeps configurations written for the OpenTelemetry Collector
 * working and guards the heap as a whole.
 */
public final class MemoryLimiterProcessor implements Processor {
  private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
  private final BatchConsumer next;
  private final long softLimitBytes;
  private final long checkIntervalNanos;
  private final RateLimitedLog refusedLog;
  private volatile long nextCheckNanos = System.nanoTime();
  private volatile boolean above;

  public MemoryLimiterProcessor(
      ComponentSettings settings, MemoryLimiterConfig config, BatchConsumer next) {
    this.next = next;
    this.softLimitBytes = config.softLimitBytes(Runtime.getRuntime().maxMemory());
    this.checkIntervalNanos = config.checkInterval().toNanos();
    this.refusedLog = new RateLimitedLog(settings.logger(), Level.WARNING, 10_000);
  }

  @Override
  public Admission consume(Batch batch) {
    long now = System.nanoTime();
    if (now - nextCheckNanos >= 0) {
      nextCheckNanos = now + checkIntervalNanos;
      long used = memory.getHeapMemoryUsage().getUsed();
      above = used > softLimitBytes;
      if (above) {
        refusedLog.log(
            "Refusing data: heap in use "
                + (used >> 20)
                + " MiB is above the soft limit of "
                + (softLimitBytes >> 20)
                + " MiB");
      }
    }
    return above ? Admission.FULL : next.consume(batch);
  }
}
