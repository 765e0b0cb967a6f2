package dev.sluice.connector.routing;

import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.ottl.ErrorMode;
import dev.sluice.ottl.OttlEvaluationException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What a condition that fails for an item does, by error mode: always counted; under {@code
 * propagate} it stops the batch ({@link Refused}) and is logged, under {@code ignore} it counts as
 * not matched and is logged, under {@code silent} it counts as not matched. Logs are rate-limited.
 */
final class RouteFailures {
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  /** Thrown out of a partition to stop the batch; made without a stack trace. */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message, null, false, false);
    }
  }

  private final ErrorMode mode;
  private final MetricRegistry.Counter count;
  private final RateLimitedLog log;

  RouteFailures(ErrorMode mode, MetricRegistry.Counter count, Logger logger) {
    this.mode = mode;
    this.count = count;
    this.log =
        new RateLimitedLog(
            logger,
            mode == ErrorMode.PROPAGATE ? Level.SEVERE : Level.WARNING,
            LOG_INTERVAL_MILLIS);
  }

  /**
   * Records that {@code condition} failed for an item; returns normally when it counts as not
   * matched.
   *
   * @throws Refused under {@code propagate}
   */
  void failed(RouteCondition condition, OttlEvaluationException e) {
    count.increment();
    switch (mode) {
      case PROPAGATE -> {
        String message =
            "Refusing a batch: routing condition '"
                + condition.text()
                + "' failed: "
                + e.getMessage();
        log.log(message);
        throw new Refused(message);
      }
      case IGNORE ->
          log.log(
              "Routing condition '"
                  + condition.text()
                  + "' failed and counts as not matched: "
                  + e.getMessage());
      default -> {}
    }
  }
}
