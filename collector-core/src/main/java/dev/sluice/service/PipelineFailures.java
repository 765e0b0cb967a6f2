package dev.sluice.service;

import dev.sluice.component.telemetry.MetricRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Requests a pipeline failed on: a processor threw (a bug, or a {@link StackOverflowError} from a
 * regular expression on a long value). The entries catch it, answer the request as failed and let
 * go of it, so the failure costs that request only; it is counted here and logged, the first time
 * and then at most once a minute with the count.
 */
public final class PipelineFailures {
  private static final Logger LOGGER = Logger.getLogger("sluice.service.pipeline");
  private static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong loggedAtNanos = new AtomicLong(System.nanoTime() - LOG_INTERVAL_NANOS);
  private final AtomicLong loggedCount = new AtomicLong();

  /** Registers {@code sluice_pipeline_failed_requests}. */
  public void register(MetricRegistry metrics) {
    metrics.gauge(
        "sluice_pipeline_failed_requests",
        "Requests a pipeline failed on (a processor threw); refused, or set aside when replayed.",
        failed::get);
  }

  /** A pipeline failed on a request; {@code what} says which and what becomes of it. */
  public void failed(String what, Throwable cause) {
    long count = failed.incrementAndGet();
    long now = System.nanoTime();
    long last = loggedAtNanos.get();
    if (now - last >= LOG_INTERVAL_NANOS && loggedAtNanos.compareAndSet(last, now)) {
      long since = count - loggedCount.getAndSet(count);
      LOGGER.log(
          Level.WARNING,
          what + " (" + since + " such failures since the last report, " + count + " in all)",
          cause);
    }
  }

  /** Requests failed on so far. */
  public long count() {
    return failed.get();
  }
}
