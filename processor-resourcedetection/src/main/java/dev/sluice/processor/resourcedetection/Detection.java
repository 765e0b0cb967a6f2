package dev.sluice.processor.resourcedetection;

import dev.sluice.component.Scheduler;
import dev.sluice.processor.resourcedetection.Detector.Detected;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs the configured detectors once and merges what they find, as the Go collector does: where two
 * detectors set the same attribute the one listed first wins, and the schema URL is the first one
 * given. A detector that fails transiently is retried with exponential backoff (doubling from
 * {@code initialBackoffNanos}, with jitter) while a retry still fits before the deadline; the
 * deadline and the waits are on the component's {@link Scheduler}, so tests move them with a clock
 * of their own. Any detector still failing fails detection, even when others succeeded, as in Go.
 */
final class Detection {
  /** The longest wait between two tries (Go's backoff default). */
  private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(60);

  /** Each wait is the backoff times a random factor in [0.5, 1.5). */
  private static final double JITTER_LOW = 0.5;

  private final List<Detector> detectors;
  private final long initialBackoffNanos;
  private final Scheduler scheduler;
  private final Logger logger;

  /**
   * The latest failure of each detector that has failed and not since succeeded, for {@link
   * #failuresSoFar} on another thread.
   */
  private final Map<String, String> failures = new LinkedHashMap<>();

  Detection(
      List<Detector> detectors, long initialBackoffNanos, Scheduler scheduler, Logger logger) {
    this.detectors = detectors;
    this.initialBackoffNanos = initialBackoffNanos;
    this.scheduler = scheduler;
    this.logger = logger;
  }

  /**
   * Detects, retrying until {@code deadlineNanos} (on the {@linkplain Scheduler#nanoTime()
   * scheduler's clock}).
   *
   * @throws DetectionException naming every detector that failed and why
   */
  Detected run(long deadlineNanos) throws DetectionException, InterruptedException {
    Map<String, String> merged = new LinkedHashMap<>();
    String schemaUrl = "";
    synchronized (failures) {
      failures.clear();
    }
    boolean failed = false;
    for (Detector detector : detectors) {
      Detected detected;
      try {
        detected = detectWithRetries(detector, deadlineNanos);
      } catch (DetectionException e) {
        failed = true;
        continue;
      }
      detected.attributes().forEach(merged::putIfAbsent);
      if (schemaUrl.isEmpty()) {
        schemaUrl = detected.schemaUrl();
      }
    }
    if (failed) {
      throw new DetectionException("resource detection failed: " + failuresSoFar(), true);
    }
    return new Detected(merged, schemaUrl);
  }

  /**
   * Each detector that has failed and not since succeeded, with its latest failure, joined by
   * {@code "; "} in the detectors' order; empty if none has failed. Safe to call while {@link #run}
   * is going on, to say why detection has not finished.
   */
  String failuresSoFar() {
    List<String> named = new ArrayList<>();
    synchronized (failures) {
      failures.forEach((name, message) -> named.add(name + " detector: " + message));
    }
    return String.join("; ", named);
  }

  private Detected detectWithRetries(Detector detector, long deadlineNanos)
      throws DetectionException, InterruptedException {
    long backoffNanos = initialBackoffNanos;
    while (true) {
      try {
        Detected detected = detector.detect();
        synchronized (failures) {
          failures.remove(detector.name());
        }
        return detected;
      } catch (DetectionException e) {
        synchronized (failures) {
          failures.put(detector.name(), e.getMessage());
        }
        logger.log(
            Level.WARNING,
            "failed to detect resource with the "
                + detector.name()
                + " detector: "
                + e.getMessage());
        long delayNanos =
            (long) (backoffNanos * (JITTER_LOW + ThreadLocalRandom.current().nextDouble()));
        if (e.permanent() || scheduler.nanoTime() + delayNanos - deadlineNanos >= 0) {
          throw e;
        }
        scheduler.sleep(delayNanos);
        backoffNanos = Math.min(backoffNanos * 2, MAX_BACKOFF_NANOS);
      }
    }
  }
}
