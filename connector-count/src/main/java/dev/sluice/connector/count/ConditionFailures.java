package dev.sluice.connector.count;

import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlEvaluationException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A condition that cannot be evaluated for an item (a converter given a value it cannot take)
 * counts as not matched for that item: the failure is counted and logged, rate-limited, and the
 * other items and metrics are counted as usual.
 */
final class ConditionFailures {
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private final MetricRegistry.Counter count;
  private final RateLimitedLog log;

  ConditionFailures(MetricRegistry.Counter count, Logger logger) {
    this.count = count;
    this.log = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
  }

  void failed(MetricDef def, OttlCondition condition, OttlEvaluationException e) {
    count.increment();
    log.log(
        "Condition '"
            + condition.text()
            + "' of count metric "
            + def.name()
            + " failed and counts as not matched: "
            + e.getMessage());
  }
}
