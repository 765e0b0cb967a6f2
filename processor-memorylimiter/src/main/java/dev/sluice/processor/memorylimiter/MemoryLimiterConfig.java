package dev.sluice.processor.memorylimiter;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.GoDuration;
import java.time.Duration;

/**
 * The {@code memory_limiter} processor's configuration, with the OpenTelemetry Collector's keys:
 * data is refused while the heap in use is above the soft limit ({@code limit - spike_limit}).
 * Limits are in MiB or in percent of the maximum heap; {@code spike_limit} defaults to a fifth of
 * the limit.
 */
public record MemoryLimiterConfig(
    Duration checkInterval,
    int limitMib,
    int spikeLimitMib,
    int limitPercentage,
    int spikeLimitPercentage)
    implements ComponentConfig {
  public static final MemoryLimiterConfig DEFAULT =
      new MemoryLimiterConfig(Duration.ZERO, 0, 0, 0, 0);

  @Override
  public void validate(ConfigProblems problems) {
    if (checkInterval.isNegative() || checkInterval.isZero()) {
      problems.add("check_interval", "must be positive, was " + GoDuration.format(checkInterval));
    }
    if (limitMib <= 0 && limitPercentage <= 0) {
      problems.add("limit_mib", "set limit_mib or limit_percentage");
    }
    if (limitMib > 0 && limitPercentage > 0) {
      problems.add("limit_percentage", "set limit_mib or limit_percentage, not both");
    }
    if (limitPercentage > 100) {
      problems.add("limit_percentage", "must be at most 100, was " + limitPercentage);
    }
    if (limitMib > 0 && spikeLimitMib >= limitMib) {
      problems.add("spike_limit_mib", "must be less than limit_mib");
    }
    if (limitPercentage > 0 && spikeLimitPercentage >= limitPercentage) {
      problems.add("spike_limit_percentage", "must be less than limit_percentage");
    }
  }

  /** The heap use above which data is refused, in bytes. */
  long softLimitBytes(long maxHeapBytes) {
    long limit;
    long spike;
    if (limitMib > 0) {
      limit = (long) limitMib << 20;
      spike = spikeLimitMib > 0 ? (long) spikeLimitMib << 20 : limit / 5;
    } else {
      limit = maxHeapBytes / 100 * limitPercentage;
      spike = spikeLimitPercentage > 0 ? maxHeapBytes / 100 * spikeLimitPercentage : limit / 5;
    }
    return limit - spike;
  }
}
