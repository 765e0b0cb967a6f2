package dev.sluice.service.sender;

import dev.sluice.component.ExportResult;
import dev.sluice.pdata.Batch;

/**
 * A stage of an exporter's sending chain behind its queue ({@link RetrySender}, {@link
 * TimeoutSender}): sends a batch through the rest of the chain on the calling thread, which is one
 * of the chain's sending threads, never an event loop or a timer.
 */
@FunctionalInterface
interface Sender {
  /**
   * Sends {@code batch}, which is read-only and valid until this returns, and returns what the last
   * attempt learned.
   *
   * @throws InterruptedException when the chain is stopping
   */
  ExportResult send(Batch batch) throws InterruptedException;
}
