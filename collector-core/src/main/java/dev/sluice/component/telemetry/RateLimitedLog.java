package dev.sluice.component.telemetry;

import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A log line for the data path: written at most once per interval, with the number of times it was
 * suppressed since the last one. Lock-free; one instance per kind of event.
 */
public final class RateLimitedLog {
  private final Logger logger;
  private final Level level;
  private final long intervalNanos;
  private final AtomicLong nextNanos = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong suppressed = new AtomicLong();

  public RateLimitedLog(Logger logger, Level level, long intervalMillis) {
    this.logger = logger;
    this.level = level;
    this.intervalNanos = intervalMillis * 1_000_000L;
  }

  /** Logs the message unless one was logged less than an interval ago. */
  public void log(String message) {
    if (!logger.isLoggable(level)) {
      return;
    }
    long now = System.nanoTime();
    long next = nextNanos.get();
    if ((next != Long.MIN_VALUE && now - next < 0)
        || !nextNanos.compareAndSet(next, now + intervalNanos)) {
      suppressed.incrementAndGet();
      return;
    }
    long skipped = suppressed.getAndSet(0);
    logger.log(level, skipped == 0 ? message : message + " (" + skipped + " similar suppressed)");
  }
}
