package dev.sluice.service;

import dev.sluice.component.RetryConfig;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter for one batch: each delay is the current interval randomized by
 * ±{@code randomization_factor}, the interval grows by {@code multiplier} up to {@code
 * max_interval}, and no delay is given once {@code max_elapsed_time} would be passed.
 */
final class Backoff {
  static final long STOP = -1;

  private final RetryConfig config;
  private final long startNanos;
  private double intervalNanos;

  Backoff(RetryConfig config, long startNanos) {
    this.config = config;
    this.startNanos = startNanos;
    this.intervalNanos = config.initialInterval().toNanos();
  }

  /** The next delay in nanoseconds, or {@link #STOP} when retrying should end. */
  long nextDelayNanos(long nowNanos) {
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
