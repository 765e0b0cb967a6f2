package dev.sluice.component;

import java.time.Duration;

/**
 * Retrying failed sends ({@code retry_on_failure}), with the OpenTelemetry Collector's keys and
 * defaults: exponential backoff with jitter, capped, for at most {@code max_elapsed_time}.
 */
public record RetryConfig(
    boolean enabled,
    Duration initialInterval,
    Duration maxInterval,
    Duration maxElapsedTime,
    double multiplier,
    double randomizationFactor)
    implements Validatable {

  public static final RetryConfig DEFAULT =
      new RetryConfig(
          true, Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(5), 1.5, 0.5);

  /** No retries: a failed send is dropped and counted. */
  public static final RetryConfig DISABLED =
      new RetryConfig(
          false, Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(5), 1.5, 0.5);

  /** Disabled retries are not checked: their keys are not used. */
  @Override
  public void validate(ConfigProblems problems) {
    if (!enabled) {
      return;
    }
    if (initialInterval.isNegative() || initialInterval.isZero()) {
      problems.add(
          "initial_interval", "must be positive, was " + GoDuration.format(initialInterval));
    }
    if (maxInterval.compareTo(initialInterval) < 0) {
      problems.add("max_interval", "must not be less than initial_interval");
    }
    if (maxElapsedTime.isNegative()) {
      problems.add("max_elapsed_time", "must not be negative (0 means no limit)");
    }
    if (multiplier < 1) {
      problems.add("multiplier", "must be at least 1, was " + multiplier);
    }
    if (randomizationFactor < 0 || randomizationFactor > 1) {
      problems.add("randomization_factor", "must be between 0 and 1, was " + randomizationFactor);
    }
  }
}
