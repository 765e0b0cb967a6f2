package dev.sluice.processor.transform;

import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.ottl.ErrorMode;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a statement or condition that fails for an item does, by error mode: counted, logged
 * rate-limited.
 */
final class Failures {
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private final MetricRegistry.Counter count;
  private final RateLimitedLog severe;
  private final RateLimitedLog warning;

  Failures(MetricRegistry.Counter count, Logger logger) {
    this.count = count;
    this.severe = new RateLimitedLog(logger, Level.SEVERE, LOG_INTERVAL_MILLIS);
    this.warning = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
  }

  /** Records a failure; true to go on with the next statement, false to drop the batch. */
  boolean failed(ErrorMode mode, String what, String text, RuntimeException e) {
    count.increment();
    switch (mode) {
      case PROPAGATE -> {
        severe.log("Dropping the batch: " + what + " '" + text + "' failed: " + e.getMessage());
        return false;
      }
      case IGNORE -> {
        warning.log(what + " '" + text + "' failed and is skipped: " + e.getMessage());
        return true;
      }
      default -> {
        return true;
      }
    }
  }
}
