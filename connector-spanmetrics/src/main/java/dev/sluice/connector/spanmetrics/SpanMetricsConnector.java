package dev.sluice.connector.spanmetrics;

import dev.sluice.component.Admission;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.component.RepeatingTimer;
import dev.sluice.component.Scheduler;
import dev.sluice.component.StateHandoff;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.Batch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@code spanmetrics} connector: counts the spans that reach it into per-resource series and,
 * every {@code metrics_flush_interval}, hands a metrics request built from them to the metrics
 * pipelines it feeds.
 *
 * <p><b>Backpressure.</b> A flush the pipelines refuse leaves the state as it was (a delta interval
 * is not closed, nothing is reset), and until a flush is taken every batch of spans is refused
 * ({@link Admission#FULL}) with nothing counted, so the senders retry later instead of the
 * connector counting what it cannot hand on. The next timer tick builds the request again from the
 * same state. A batch whose new resources do not fit beside those held is refused the same way.
 *
 * <p><b>The write-ahead log.</b> Every batch counted is added to the sources of the next flush
 * ({@link StateHandoff#madeFrom}), and each flush is handed on with them: logged spans stay owed in
 * the log until a flush that counted them is delivered. Once a flush is taken (or dropped for good)
 * they are let go of and a new interval's sources begin; a flush lost only because the collector
 * stops leaves them owed, to be replayed and counted again after the restart.
 *
 * <p><b>Threads.</b> Pipeline threads count under one lock; the flush runs on the scheduler's
 * thread under the same lock, from building the request to applying the pipelines' answer, so no
 * span is counted into a delta interval that is being closed.
 */
final class SpanMetricsConnector implements Connector {
  private final Aggregator aggregator;
  private final RequestWriter writer;
  private final Scheduler scheduler;
  private final long intervalNanos;
  private final long unixOffsetNanos;
  private final Logger logger;
  private final RateLimitedLog resourcesFull;
  private final StateHandoff handoff;
  private final ReentrantLock lock = new ReentrantLock();
  private final RepeatingTimer timer;
  private boolean stopped;

  /**
   * @param unixOffsetNanos Unix time minus the scheduler's clock, in nanoseconds: timestamps are
   *     taken from the scheduler's clock, so that tests that move it move them too
   * @param seed of the random rounding of fractional adjusted counts
   */
  SpanMetricsConnector(
      ComponentSettings settings,
      SpanMetricsConfig config,
      ConnectorOutput output,
      String collectorInstanceId,
      long unixOffsetNanos,
      long seed) {
    this.aggregator = new Aggregator(config, seed);
    this.writer = new RequestWriter(aggregator, config, collectorInstanceId);
    this.scheduler = settings.scheduler();
    this.intervalNanos = config.metricsFlushInterval().toNanos();
    this.unixOffsetNanos = unixOffsetNanos;
    this.logger = settings.logger();
    this.resourcesFull = new RateLimitedLog(logger, Level.WARNING, 10_000);
    this.handoff = new StateHandoff(output, logger, "the span metrics");
    this.timer = new RepeatingTimer(scheduler, intervalNanos, lock, this::flush);
  }

  @Override
  public void start() {
    timer.start();
  }

  @Override
  public Admission consume(Batch batch) {
    lock.lock();
    try {
      if (stopped) {
        return Admission.CLOSED;
      }
      if (handoff.refusing()) {
        return Admission.FULL;
      }
      long now = scheduler.nanoTime();
      if (!aggregator.consume(batch, now, now + unixOffsetNanos)) {
        resourcesFull.log(
            "spans of more resources than resource_metrics_cache_size allows until the next"
                + " flush: refusing them until it");
        return Admission.FULL;
      }
      handoff.madeFrom(batch);
    } finally {
      lock.unlock();
    }
    batch.clear();
    return Admission.ACCEPTED;
  }

  /** Hands the state on; true when there was nothing to hand on or the pipelines took it. */
  private boolean flush() {
    long now = scheduler.nanoTime();
    long unixNow = now + unixOffsetNanos;
    if (!handoff.handOn(() -> writer.write(unixNow))) {
      return false;
    }
    aggregator.flushed(now, unixNow);
    return true;
  }

  @Override
  public void shutdown(long deadlineNanos) {
    lock.lock();
    try {
      if (stopped) {
        return;
      }
      stopped = true;
      timer.stop();
      if (!flush()) {
        logger.warning(
            "the metrics pipelines refused the last span metrics at shutdown; they are dropped");
      }
    } finally {
      lock.unlock();
    }
  }

  /** For tests: whether spans are being refused because a flush was. */
  boolean refusing() {
    lock.lock();
    try {
      return handoff.refusing();
    } finally {
      lock.unlock();
    }
  }

  static long unixOffsetNanos(Scheduler scheduler) {
    return TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis()) - scheduler.nanoTime();
  }
}
