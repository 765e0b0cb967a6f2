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
 * every batch, a refused flush is offered again on each expiration tick. Stale series are not
 * cleaned up while flushes are refused, so no count is forgotten before a flush carries it.
 *
 * <p><b>The write-ahead log.</b> A logged request stays owed in the log until every edge its spans
 * opened or filled is decided (paired and counted, dropped, or expired: counted as a virtual node's
 * or only as expired) and a flush carrying those counts is delivered. Rather than tracking edges,
 * it is bounded by time ({@link SourceGenerations}): batches consumed within one {@code
 * store_expiration_loop} share a generation; a generation is handed on with the first flush after
 * the store's expiration ran past its last batch plus {@code store.ttl}, when none of its edges can
 * still be waiting. So a request stays owed for at most {@code store.ttl + 2 *
 * store_expiration_loop + metrics_flush_interval} after it was consumed, plus the flush's delivery,
 * and longer while flushes are refused (a refused flush keeps what it carried owed). A flush lost
 * only because the collector stops, and the generations not yet handed on, leave their requests
 * owed, to be replayed and paired again after the restart.
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
  private final long ttlNanos;
  private final long unixOffsetNanos;
  private final long startUnixNanos;
  private final Logger logger;
  private final StateHandoff handoff;
  private final SourceGenerations generations;
  // When the store's expiration last ran: no edge opened before this minus the ttl is left.
  private long expiredThroughNanos;
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
    this.ttlNanos = config.store().ttl().toNanos();
    this.handoff = new StateHandoff(output, logger, "the service graph metrics");
    this.generations = new SourceGenerations(output, expirationLoopNanos);
    this.expiredThroughNanos = scheduler.nanoTime();
    this.flushTimer =
        flushIntervalNanos > 0
            ? new RepeatingTimer(scheduler, flushIntervalNanos, lock, this::flush)
            : null;
    this.expirationTimer = new RepeatingTimer(scheduler, expirationLoopNanos, lock, this::expire);
    this.cacheTimer = new RepeatingTimer(scheduler, cacheLoopNanos, lock, this::removeStaleSeries);
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
      long now = scheduler.nanoTime();
      aggregator.consume(batch, now);
      generations.add(batch, now);
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
    long now = scheduler.nanoTime();
    aggregator.expire(now);
    expiredThroughNanos = now;
    if (flushIntervalNanos == 0
        && (handoff.refusing() || generations.anyBefore(decidedBeforeNanos()))) {
      flush();
    }
  }

  private void removeStaleSeries() {
    if (!handoff.refusing()) {
      aggregator.series.removeStale(scheduler.nanoTime());
    }
  }

  /** Batches consumed before this have no edge left in the store: theirs are all decided. */
  private long decidedBeforeNanos() {
    return expiredThroughNanos - ttlNanos;
  }

  /**
   * Hands the metrics on, with the generations whose edges are all decided; true when there was
   * nothing to hand on or the pipelines took them.
   */
  private boolean flush() {
    generations.handOver(decidedBeforeNanos(), handoff);
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

  /** For tests: the generations of sources not handed on yet. */
  int sourceGenerations() {
    lock.lock();
    try {
      return generations.size();
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
