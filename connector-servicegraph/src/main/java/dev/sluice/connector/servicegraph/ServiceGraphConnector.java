package dev.sluice.connector.servicegraph;

import dev.sluice.component.Admission;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.component.RepeatingTimer;
import dev.sluice.component.Scheduler;
import dev.sluice.component.StateHandoff;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;

/**
 * The {@code servicegraph} connector: pairs the client and server spans that reach it into edges
 * between services ({@link EdgeAggregator}) and, every {@code metrics_flush_interval} (or after
 * every batch when it is 0), hands the cumulative metrics of those edges to the metrics pipelines
 * it feeds. Three timers run on the scheduler: the flush, the store's expiration ({@code
 * store_expiration_loop}) and the cleanup of stale series ({@code cache_loop}).
 *
 * <p><b>Backpressure.</b> The metrics are cumulative, so a flush the pipelines refuse loses
 * nothing: the next one carries the same counts and more. But until a flush is taken, every batch
 * of spans is refused ({@link Admission#FULL}) with nothing paired or counted, so that the state
 * does not grow past what the pipelines can take, and the senders retry later. With a flush after
 * every batch, a refused flush is offered again on each expiration tick.
 *
 * <p><b>Threads.</b> Pipeline threads pair spans under one lock; the timers run on the scheduler's
 * thread under the same lock.
 */
final class ServiceGraphConnector implements Connector {
  private final EdgeAggregator aggregator;
  private final RequestWriter writer;
  private final Scheduler scheduler;
  private final long flushIntervalNanos;
  private final long expirationLoopNanos;
  private final long cacheLoopNanos;
  private final long timestampOffsetNanos;
  private final long unixOffsetNanos;
  private final long startUnixNanos;
  private final Logger logger;
  private final StateHandoff handoff;
  private final ReentrantLock lock = new ReentrantLock();
  private final RepeatingTimer flushTimer;
  private final RepeatingTimer expirationTimer;
  private final RepeatingTimer cacheTimer;
  private boolean stopped;

  /**
   * @param unixOffsetNanos Unix time minus the scheduler's clock, in nanoseconds: timestamps are
   *     taken from the scheduler's clock, so that tests that move it move them too
   */
  ServiceGraphConnector(
      ComponentSettings settings,
      ServiceGraphConfig config,
      ConnectorOutput output,
      long unixOffsetNanos) {
    String id = settings.id().toString();
    MetricRegistry metrics = settings.metrics();
    this.aggregator =
        new EdgeAggregator(
            config,
            metrics.counter(
                "otelcol_connector_servicegraph_dropped_spans",
                "Number of spans dropped when trying to add edges",
                "connector",
                id),
            metrics.counter(
                "otelcol_connector_servicegraph_total_edges",
                "Total number of unique edges",
                "connector",
                id),
            metrics.counter(
                "otelcol_connector_servicegraph_expired_edges",
                "Number of edges that expired before finding its matching span",
                "connector",
                id));
    metrics.gauge(
        "sluice_connector_servicegraph_overflow_edges",
        "Number of edges counted into the overflow series because max_series series were held",
        this::overflowEdges,
        "connector",
        id);
    this.writer = new RequestWriter(aggregator.series, config.dimensions());
    this.scheduler = settings.scheduler();
    this.flushIntervalNanos = config.metricsFlushInterval().toNanos();
    this.expirationLoopNanos = config.storeExpirationLoopNanos();
    this.cacheLoopNanos = config.cacheLoopNanos();
    this.timestampOffsetNanos = config.metricsTimestampOffset().toNanos();
    this.unixOffsetNanos = unixOffsetNanos;
    this.startUnixNanos = scheduler.nanoTime() + unixOffsetNanos;
    this.logger = settings.logger();
    this.handoff = new StateHandoff(output, logger, "the service graph metrics");
    this.flushTimer =
        flushIntervalNanos > 0
            ? new RepeatingTimer(scheduler, flushIntervalNanos, lock, this::flush)
            : null;
    this.expirationTimer = new RepeatingTimer(scheduler, expirationLoopNanos, lock, this::expire);
    this.cacheTimer =
        new RepeatingTimer(
            scheduler,
            cacheLoopNanos,
            lock,
            () -> aggregator.series.removeStale(scheduler.nanoTime()));
  }

  @Override
  public void start() {
    lock.lock();
    try {
      if (stopped) {
        return;
      }
      if (flushTimer != null) {
        flushTimer.start();
      }
      expirationTimer.start();
      cacheTimer.start();
    } finally {
      lock.unlock();
    }
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
      aggregator.consume(batch, scheduler.nanoTime());
      if (flushIntervalNanos == 0) {
        // The spans are paired whatever the pipelines answer; a refusal shows on the next batch.
        flush();
      }
    } finally {
      lock.unlock();
    }
    batch.clear();
    return Admission.ACCEPTED;
  }

  private void expire() {
    aggregator.expire(scheduler.nanoTime());
    if (flushIntervalNanos == 0 && handoff.refusing()) {
      flush();
    }
  }

  /** Hands the metrics on; true when there was nothing to hand on or the pipelines took them. */
  private boolean flush() {
    long unixNow = scheduler.nanoTime() + unixOffsetNanos;
    return handoff.handOn(() -> writer.write(startUnixNanos, unixNow - timestampOffsetNanos));
  }

  @Override
  public void shutdown(long deadlineNanos) {
    lock.lock();
    try {
      if (stopped) {
        return;
      }
      stopped = true;
      if (flushTimer != null) {
        flushTimer.stop();
      }
      expirationTimer.stop();
      cacheTimer.stop();
      if (!flush()) {
        logger.warning("the metrics pipelines refused the last service graph metrics at shutdown");
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

  /** For tests: the edges waiting for their other side. */
  int openEdges() {
    lock.lock();
    try {
      return aggregator.openEdges();
    } finally {
      lock.unlock();
    }
  }

  private long overflowEdges() {
    lock.lock();
    try {
      return aggregator.series.overflowEdges();
    } finally {
      lock.unlock();
    }
  }

  static long unixOffsetNanos(Scheduler scheduler) {
    return TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis()) - scheduler.nanoTime();
  }
}
