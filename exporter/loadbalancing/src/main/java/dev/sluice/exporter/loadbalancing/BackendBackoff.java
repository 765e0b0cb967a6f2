package dev.sluice.exporter.loadbalancing;

import dev.sluice.component.RetryConfig;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The delays between attempts to one backend ({@code protocol.otlp.retry_on_failure}), as the
 * service's retries compute them: exponential with jitter, capped at {@code max_interval}, none
 * once {@code max_elapsed_time} would be passed.
 */
final class BackendBackoff {
  static final long STOP = -1;

  private final RetryConfig config;
  private final long startNanos;
  private double intervalNanos;

  BackendBackoff(RetryConfig config, long startNanos) {
    this.config = config;
    this.startNanos = startNanos;
    this.intervalNanos = config.initialInterval().toNanos();
  }

  /** The next delay, or {@link #STOP}. */
  long nextDelayNanos(long nowNanos) {
    if (!config.enabled()) {
      return STOP;
    }
    double jitter =
        config.randomizationFactor() * (2 * ThreadLocalRandom.current().nextDouble() - 1);
    long delay = (long) (intervalNanos * (1 + jitter));
    intervalNanos = Math.min(intervalNanos * config.multiplier(), config.maxInterval().toNanos());
    long maxElapsed = config.maxElapsedTime().toNanos();
    if (maxElapsed > 0 && nowNanos - startNanos + delay > maxElapsed) {
      return STOP;
    }
    return delay;
  }
}
