package dev.sluice.component;

import dev.sluice.pdata.Batch;

/**
 * Sends batches to one destination. An exporter implements only the send; the service's sending
 * chain wraps it: the sending queue, retries with backoff and the per-attempt timeout ({@code
 * SendingChain}).
 */
public interface Exporter extends Lifecycle {
  /**
   * Sends one batch, waiting at most until {@code deadlineNanos} ({@link System#nanoTime()}). The
   * batch is read-only and shared with other exporters; it stays valid until this returns. Called
   * from several threads at once (the chain's sending threads), never from an event loop or a
   * timer, so it may wait.
   */
  ExportResult export(Batch batch, long deadlineNanos) throws InterruptedException;
}
