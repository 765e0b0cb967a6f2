package dev.sluice.component;

import dev.sluice.pdata.otlp.Batch;

/**
 * Sends batches to one destination. An exporter implements only the send; the sending queue,
 * retries with backoff and the per-attempt timeout wrap it ({@code QueuedExporter}).
 */
public interface Exporter extends Lifecycle {
  /**
   * Sends one batch, waiting at most until {@code deadlineNanos} ({@link System#nanoTime()}). The
   * batch is read-only and shared with other exporters; it stays valid until this returns. Called
   * from several threads at once (the queue's consumers).
   */
  ExportResult export(Batch batch, long deadlineNanos) throws InterruptedException;
}
