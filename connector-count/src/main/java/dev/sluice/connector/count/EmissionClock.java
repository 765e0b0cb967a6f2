package dev.sluice.connector.count;

import dev.sluice.component.Scheduler;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The time intervals the counts cover, in Unix epoch nanoseconds. Each batch counted claims the
 * interval from the end of the one claimed before to now, so that the intervals of one connector
 * never overlap and leave no gap: a delta series made of them adds up to every item counted, and a
 * series without a data point in an interval counted nothing then. Time is the service's clock
 * ({@link Scheduler#nanoTime()}), anchored to the wall clock when the connector is made, so it
 * never goes back.
 */
final class EmissionClock {
  private final Scheduler scheduler;
  private final long anchorEpochNanos;
  private final long anchorNanoTime;
  private final AtomicLong claimedUntil;

  /** An interval of time: {@code (startNanos, endNanos]}. */
  record Interval(long startNanos, long endNanos) {}

  EmissionClock(Scheduler scheduler, Instant now) {
    this.scheduler = scheduler;
    this.anchorNanoTime = scheduler.nanoTime();
    this.anchorEpochNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    this.claimedUntil = new AtomicLong(anchorEpochNanos);
  }

  /** Now, in Unix epoch nanoseconds. */
  long epochNanos() {
    return anchorEpochNanos + (scheduler.nanoTime() - anchorNanoTime);
  }

  /**
   * Claims the interval from the end of the last one claimed to now (at least a nanosecond long, so
   * two batches counted at the same instant still get intervals of their own).
   */
  Interval claim() {
    while (true) {
      long start = claimedUntil.get();
      long end = Math.max(epochNanos(), start + 1);
      if (claimedUntil.compareAndSet(start, end)) {
        return new Interval(start, end);
      }
    }
  }
}
