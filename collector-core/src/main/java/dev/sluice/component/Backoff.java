package dev.sluice.component;

import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with jitter for one batch: each delay is the current interval randomized by
 * ±{@code randomization_factor}, the interval grows by {@code multiplier} up to {@code
 * max_interval}, and no delay is given once {@code max_elapsed_time} would be passed. The service's
 * retries and exporters that retry on their own (one backend of a pool) share it.
 */
public final class Backoff {
  public static final long STOP = -1;

  private final RetryConfig config;
  private final long startNanos;
  private final DoubleSupplier random;
  private double intervalNanos;

  /**
   * @param random uniform in [0, 1), for the jitter
   */
  public Backoff(RetryConfig config, long startNanos, DoubleSupplier random) {
    this.config = config;
    this.startNanos = startNanos;
    this.random = random;
    this.intervalNanos = config.initialInterval().toNanos();
  }

  /** The next delay in nanoseconds, or {@link #STOP} when retrying should end. */
  public long nextDelayNanos(long nowNanos) {
    double jitter = config.randomizationFactor() * (2 * random.getAsDouble() - 1);
    long delay = (long) (intervalNanos * (1 + jitter));
    intervalNanos = Math.min(intervalNanos * config.multiplier(), config.maxInterval().toNanos());
    long maxElapsed = config.maxElapsedTime().toNanos();
    if (maxElapsed > 0 && nowNanos - startNanos + delay > maxElapsed) {
      return STOP;
    }
    return delay;
  }
}
