package dev.sluice.processor.filter;

import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.ottl.ErrorMode;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlEvaluationException;
import java.util.logging.Level;
import java.util.logging.Logger;

/** What a condition that fails for an item does, by error mode: counted, logged rate-limited. */
final class Failures {
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private final ErrorMode mode;
  private final MetricRegistry.Counter count;
  private final RateLimitedLog log;

  Failures(ErrorMode mode, MetricRegistry.Counter count, Logger logger) {
    this.mode = mode;
    this.count = count;
    this.log =
        new RateLimitedLog(
            logger,
            mode == ErrorMode.PROPAGATE ? Level.SEVERE : Level.WARNING,
            LOG_INTERVAL_MILLIS);
  }

  /** Records a failure; true to go on with the next condition, false to stop the batch. */
  boolean failed(OttlCondition condition, OttlEvaluationException e, FilterRun run) {
    count.increment();
    switch (mode) {
      case PROPAGATE -> {
        run.fail();
        log.log(
            "Dropping the batch: condition '" + condition.text() + "' failed: " + e.getMessage());
        return false;
      }
      case IGNORE -> {
        log.log(
            "Condition '"
                + condition.text()
                + "' failed and counts as not matched: "
                + e.getMessage());
        return true;
      }
      default -> {
        return true;
      }
    }
  }
}
