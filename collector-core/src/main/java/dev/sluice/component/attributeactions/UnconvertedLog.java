package dev.sluice.component.attributeactions;

import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.edit.AttributeActions;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Logs the values a processor's {@code convert} actions left unconverted ({@link
 * AttributeActions#unconvertedCount()}), at {@code FINE} as the Go collector logs them at debug,
 * rate-limited. Thread-safe: one per processor, whose threads report after each batch.
 */
public final class UnconvertedLog {
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private final AttributeActions actions;
  private final RateLimitedLog log;
  private final AtomicLong reported = new AtomicLong();

  public UnconvertedLog(AttributeActions actions, Logger logger) {
    this.actions = actions;
    this.log = new RateLimitedLog(logger, Level.FINE, LOG_INTERVAL_MILLIS);
  }

  /** Logs the values left unconverted since the last report, if any. */
  public void report() {
    long now = actions.unconvertedCount();
    long before = reported.get();
    if (now > before && reported.compareAndSet(before, now)) {
      log.log(
          "Left "
              + (now - before)
              + " attribute values unconverted: not convertible to the converted_type");
    }
  }
}
