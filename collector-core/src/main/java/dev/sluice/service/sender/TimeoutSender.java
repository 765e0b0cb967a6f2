package dev.sluice.service.sender;

import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.Scheduler;
import dev.sluice.pdata.Batch;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One attempt of the exporter's own send, bounded by {@code timeout}: the exporter gets a deadline
 * that far ahead on the service's clock. Whatever the exporter throws becomes an answer, so that a
 * sending thread never dies of it.
 */
final class TimeoutSender implements Sender {
  private final Exporter exporter;
  private final long timeoutNanos;
  private final Scheduler clock;
  private final Logger logger;

  TimeoutSender(Exporter exporter, long timeoutNanos, Scheduler clock, Logger logger) {
    if (timeoutNanos <= 0) {
      throw new IllegalArgumentException("the timeout must be positive: " + timeoutNanos);
    }
    this.exporter = exporter;
    this.timeoutNanos = timeoutNanos;
    this.clock = clock;
    this.logger = logger;
  }

  @Override
  public ExportResult send(Batch batch) throws InterruptedException {
    try {
      return exporter.export(batch, clock.nanoTime() + timeoutNanos);
    } catch (RuntimeException | OutOfMemoryError e) {
      // An OutOfMemoryError that gets here is one the JVM did not end the process for
      // (-XX:+ExitOnOutOfMemoryError): off-heap memory, such as Netty's direct buffers for the
      // frames of a send, which frees up as the sends in flight complete. The batch is kept and
      // retried like any failed send.
      logger.log(Level.WARNING, "Exporter failed unexpectedly", e);
      return ExportResult.retryable("exporter failed: " + e, 0);
    } catch (Error e) {
      // A bug in the exporter: sending the batch again would most likely fail the same way, so it
      // is dropped and counted, and the thread goes on with the next one.
      logger.log(Level.SEVERE, "Exporter failed with an error", e);
      return ExportResult.permanent("exporter failed: " + e);
    }
  }
}
