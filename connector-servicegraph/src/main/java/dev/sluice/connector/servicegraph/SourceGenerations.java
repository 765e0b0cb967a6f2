package dev.sluice.connector.servicegraph;

import dev.sluice.component.ConnectorOutput;
import dev.sluice.component.StateHandoff;
import dev.sluice.pdata.Batch;
import java.util.ArrayDeque;

/**
 * What the connector's edges were made from, kept apart by age until every edge it opened is
 * decided (paired and counted, dropped, or expired): the batches consumed within one {@code
 * lengthNanos} share one generation of {@link ConnectorOutput.Sources}, oldest first. Every edge
 * lives for the same ttl from the batch that opened it, so once the store's expiration has run past
 * {@code last batch of a generation + ttl}, no edge of that generation is left in the store and its
 * counts are in the series: {@link #handOver} then adds it to the next hand-off.
 *
 * <p>Bounded by time, not by spans: a generation is opened at most once per {@code lengthNanos}
 * while batches are taken, and none is opened while the connector refuses them, so at most {@code
 * (ttl + metrics_flush_interval) / lengthNanos + 3} are open. A span costs nothing here; a batch
 * one {@link ConnectorOutput.Sources#add}. Not thread-safe: the connector calls it under its lock.
 */
final class SourceGenerations {
  private final ConnectorOutput output;
  private final long lengthNanos;
  private final ArrayDeque<Generation> open = new ArrayDeque<>();
  private final ArrayDeque<Generation> spare = new ArrayDeque<>();

  private static final class Generation {
    final ConnectorOutput.Sources sources;
    long firstNanos;
    long lastNanos;

    Generation(ConnectorOutput.Sources sources) {
      this.sources = sources;
    }
  }

  /**
   * @param lengthNanos how long batches go into the same generation, above 0
   */
  SourceGenerations(ConnectorOutput output, long lengthNanos) {
    this.output = output;
    this.lengthNanos = lengthNanos;
  }

  /** Adds {@code batch}, consumed now, to the newest generation (a new one when that is old). */
  void add(Batch batch, long nowNanos) {
    Generation newest = open.peekLast();
    if (newest == null || nowNanos - newest.firstNanos >= lengthNanos) {
      newest = spare.pollFirst();
      if (newest == null) {
        newest = new Generation(output.sources());
      }
      newest.firstNanos = nowNanos;
      open.addLast(newest);
    }
    newest.sources.add(batch);
    newest.lastNanos = nowNanos;
  }

  /** Whether a generation was consumed entirely before {@code consumedBeforeNanos}. */
  boolean anyBefore(long consumedBeforeNanos) {
    Generation oldest = open.peekFirst();
    return oldest != null && oldest.lastNanos - consumedBeforeNanos < 0;
  }

  /**
   * Adds every generation consumed entirely before {@code consumedBeforeNanos} to the next hand-off
   * of {@code handoff}, which keeps them owed from then on, and lets go of them here.
   */
  void handOver(long consumedBeforeNanos, StateHandoff handoff) {
    while (anyBefore(consumedBeforeNanos)) {
      Generation oldest = open.pollFirst();
      handoff.madeFrom(oldest.sources);
      oldest.sources.release();
      spare.addFirst(oldest);
    }
  }

  /** For tests: the generations open. */
  int size() {
    return open.size();
  }
}
