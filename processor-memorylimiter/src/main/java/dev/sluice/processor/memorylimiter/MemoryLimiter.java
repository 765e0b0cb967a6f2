package dev.sluice.processor.memorylimiter;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.Batch;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@code memory_limiter} processor's function: refuses data while the JVM heap in use is above
 * the soft limit, read at most once per {@code check_interval} of the service's clock. Sluice's
 * pipelines are also bounded by the collector's memory budget; this keeps configurations written
 * for the OpenTelemetry Collector working and guards the heap as a whole.
 */
final class MemoryLimiter implements BatchFunction<MemoryLimiterConfig> {
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private final LongSupplier heapUsedBytes;
  private final Scheduler clock;
  private final long softLimitBytes;
  private final long checkIntervalNanos;
  private final RateLimitedLog refusedLog;
  private volatile long nextCheckNanos;
  private volatile boolean above;

  /**
   * @param heapUsedBytes reads the heap in use
   * @param maxHeapBytes the heap's maximum, which percentages are of
   */
  MemoryLimiter(
      MemoryLimiterConfig config,
      LongSupplier heapUsedBytes,
      long maxHeapBytes,
      Scheduler clock,
      Logger logger) {
    this.heapUsedBytes = heapUsedBytes;
    this.clock = clock;
    this.softLimitBytes = config.softLimitBytes(maxHeapBytes);
    this.checkIntervalNanos = config.checkInterval().toNanos();
    this.refusedLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
    this.nextCheckNanos = clock.nanoTime();
  }

  @Override
  public Admission apply(Batch batch, MemoryLimiterConfig config) {
    long now = clock.nanoTime();
    if (now - nextCheckNanos >= 0) {
      nextCheckNanos = now + checkIntervalNanos;
      long used = heapUsedBytes.getAsLong();
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
    return above ? Admission.FULL : Admission.ACCEPTED;
  }
}
