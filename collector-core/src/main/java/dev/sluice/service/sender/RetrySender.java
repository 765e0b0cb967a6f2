package dev.sluice.service.sender;

import dev.sluice.component.Backoff;
import dev.sluice.component.ExportResult;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.Batch;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Retries what the next stage reports as retryable ({@code retry_on_failure}): exponential backoff
 * with jitter, at least the delay the destination asked for (RetryInfo, Retry-After), for at most
 * {@code max_elapsed_time}. The delays are waited on the service's {@link Scheduler}, on the
 * sending thread, which keeps the batch (and its place in the queue's order) meanwhile.
 *
 * <p>This is where each batch's fate is counted: {@code otelcol_exporter_sent_*} for what arrived,
 * {@code otelcol_exporter_send_failed_*} for what is dropped (rejected for good, partly rejected,
 * retries disabled or run out, or the exporter stopping).
 */
final class RetrySender implements Sender {
  /** How often a drop, and a retry, is logged at most. */
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private final RetryConfig config;
  private final Sender next;
  private final Scheduler scheduler;
  private final DoubleSupplier random;
  private final ExporterTelemetry telemetry;
  private final RateLimitedLog dropLog;
  private final RateLimitedLog retryLog;
  private volatile boolean stopping;
  private volatile long stopDeadlineNanos;

  /**
   * @param random uniform in [0, 1), for the jitter
   */
  RetrySender(
      RetryConfig config,
      Sender next,
      Scheduler scheduler,
      DoubleSupplier random,
      ExporterTelemetry telemetry,
      Logger logger) {
    this.config = config;
    this.next = next;
    this.scheduler = scheduler;
    this.random = random;
    this.telemetry = telemetry;
    this.dropLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
    this.retryLog = new RateLimitedLog(logger, Level.INFO, LOG_INTERVAL_MILLIS);
  }

  /** From now on, no retry is waited for that would start after {@code deadlineNanos}. */
  void stopBy(long deadlineNanos) {
    stopDeadlineNanos = deadlineNanos;
    stopping = true;
  }

  @Override
  public ExportResult send(Batch batch) throws InterruptedException {
    long startNanos = scheduler.nanoTime();
    Backoff backoff = null;
    while (true) {
      ExportResult result;
      try {
        result = next.send(batch);
      } catch (InterruptedException e) {
        // Stopped past the shutdown deadline with the send unanswered: a durable pipeline keeps
        // the batch's requests owed, to send them again after the restart.
        batch.abandonRequests();
        dropped(batch, "the exporter stopped while sending");
        throw e;
      }
      switch (result.outcome()) {
        case SUCCESS:
          succeeded(batch, result);
          return result;
        case PERMANENT:
          dropped(batch, "permanent error: " + result.message());
          return result;
        default:
          break;
      }
      if (!config.enabled()) {
        dropped(batch, "retries disabled: " + result.message());
        return result;
      }
      long nowNanos = scheduler.nanoTime();
      if (backoff == null) {
        backoff = new Backoff(config, startNanos, random);
      }
      long delayNanos = backoff.nextDelayNanos(nowNanos);
      if (delayNanos == Backoff.STOP) {
        dropped(
            batch,
            "no more retries after "
                + TimeUnit.NANOSECONDS.toMillis(nowNanos - startNanos)
                + " ms: "
                + result.message());
        return result;
      }
      delayNanos = Math.max(delayNanos, result.retryAfterNanos());
      if (stopping && nowNanos + delayNanos - stopDeadlineNanos > 0) {
        batch.abandonRequests();
        dropped(batch, "shutting down: " + result.message());
        return result;
      }
      retryLog.log(
          "Sending failed, will retry in "
              + TimeUnit.NANOSECONDS.toMillis(delayNanos)
              + " ms: "
              + result.message());
      try {
        scheduler.sleep(delayNanos);
      } catch (InterruptedException e) {
        batch.abandonRequests();
        dropped(batch, "the exporter stopped while waiting to retry: " + result.message());
        throw e;
      }
    }
  }

  private void succeeded(Batch batch, ExportResult result) {
    telemetry.sent(batch.signal(), batch.unitCount() - result.rejectedUnits());
    if (result.rejectedUnits() > 0) {
      telemetry.failed(batch.signal(), result.rejectedUnits());
      dropLog.log(
          "Partial success: the destination rejected "
              + result.rejectedUnits()
              + " "
              + batch.signal().unitName()
              + ": "
              + result.message());
    }
  }

  private void dropped(Batch batch, String why) {
    telemetry.failed(batch.signal(), batch.unitCount());
    dropLog.log(
        "Dropping "
            + batch.unitCount()
            + " "
            + batch.signal().unitName()
            + ": "
            + why
            + (batch.unitCount() > 0 && batch.anyRequestAbandoned()
                ? " (a durable pipeline sends them again after the restart)"
                : ""));
  }
}
