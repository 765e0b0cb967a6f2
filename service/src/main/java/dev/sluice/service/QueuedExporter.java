package dev.sluice.service;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.Host;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.otlp.Batch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The senders around an {@link Exporter}: sending queue, then retry with backoff, then the
 * per-attempt timeout, then the exporter's own send. Shared by every pipeline that lists the
 * exporter.
 *
 * <p>The queue never drops: a full queue makes {@link #hasCapacity()} false, and the pipeline keeps
 * the batch until there is room. Data is dropped (and counted as failed) only when the destination
 * rejects it for good, when retries run out, or when shutdown's deadline passes.
 */
public final class QueuedExporter {
  private final ComponentSettings settings;
  private final Exporter exporter;
  private final QueueConfig queueConfig;
  private final RetryConfig retryConfig;
  private final long timeoutNanos;
  private final ExporterTelemetry telemetry;
  private final Logger logger;
  private final RateLimitedLog dropLog;
  private final RateLimitedLog retryLog;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<SharedBatch> queue = new ArrayDeque<>();
  private long queued;
  private int busy;
  private boolean stopping;
  private volatile long stopDeadlineNanos = Long.MAX_VALUE;
  private final List<Thread> consumers = new ArrayList<>();

  public QueuedExporter(ComponentSettings settings, Exporter exporter, ExporterConfig config) {
    this.settings = settings;
    this.exporter = exporter;
    this.queueConfig = config.sendingQueue();
    this.retryConfig = config.retryOnFailure();
    this.timeoutNanos = config.timeout().toNanos();
    this.telemetry = new ExporterTelemetry(settings.metrics(), settings.id());
    this.logger = settings.logger();
    this.dropLog = new RateLimitedLog(logger, Level.WARNING, 10_000);
    this.retryLog = new RateLimitedLog(logger, Level.INFO, 10_000);
    if (queueConfig.enabled()) {
      String id = settings.id().toString();
      settings
          .metrics()
          .gauge(
              "otelcol_exporter_queue_size",
              "Current size of the retry queue (in " + sizerName() + ")",
              this::queued,
              "exporter",
              id);
      settings
          .metrics()
          .gauge(
              "otelcol_exporter_queue_capacity",
              "Fixed capacity of the retry queue (in " + sizerName() + ")",
              queueConfig::queueSize,
              "exporter",
              id);
    }
  }

  private String sizerName() {
    return queueConfig.sizer().name().toLowerCase(java.util.Locale.ROOT);
  }

  public void start() throws Exception {
    start(Host.NONE);
  }

  /** Starts the exporter with the running extensions, then the queue's consumers. */
  public void start(Host host) throws Exception {
    exporter.start(host);
    if (!queueConfig.enabled()) {
      return;
    }
    for (int i = 0; i < queueConfig.numConsumers(); i++) {
      Thread thread = new Thread(this::consume, "sluice-exporter-" + settings.id() + "-" + i);
      thread.setDaemon(true);
      consumers.add(thread);
      thread.start();
    }
  }

  /** Whether the queue has room for another batch (always, without a queue). */
  public boolean hasCapacity() {
    if (!queueConfig.enabled()) {
      return true;
    }
    lock.lock();
    try {
      return !stopping && queued < queueConfig.queueSize();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Takes one share of a batch; the exporter releases it once sent or dropped. Without a queue,
   * sends on the calling thread. Call after {@link #hasCapacity()}; the queue may then overflow its
   * size by the batches of pipelines that checked at the same time.
   */
  public void send(SharedBatch shared) throws InterruptedException {
    if (!queueConfig.enabled()) {
      try {
        exportWithRetry(shared.batch());
      } catch (InterruptedException e) {
        dropped(shared.batch(), "interrupted while sending");
        throw e;
      } finally {
        shared.release();
      }
      return;
    }
    lock.lock();
    try {
      if (stopping) {
        long units = shared.batch().unitCount();
        telemetry.enqueueFailed(shared.batch().signal(), units);
        shared.release();
        dropLog.log(
            "Dropping "
                + units
                + " "
                + shared.batch().signal().unitName()
                + ": exporter is stopping");
        return;
      }
      queue.addLast(shared);
      queued += size(shared.batch());
      changed.signal();
    } finally {
      lock.unlock();
    }
  }

  /** Units the queue holds, in its sizer's terms. */
  public long queued() {
    lock.lock();
    try {
      return queued;
    } finally {
      lock.unlock();
    }
  }

  private long size(Batch batch) {
    switch (queueConfig.sizer()) {
      case ITEMS:
        return batch.unitCount();
      case BYTES:
        return batch.marshaledSizeEstimate();
      default:
        return 1;
    }
  }

  private void consume() {
    while (true) {
      SharedBatch shared;
      lock.lock();
      try {
        while (queue.isEmpty() && !stopping) {
          changed.await();
        }
        shared = queue.pollFirst();
        if (shared == null) {
          return;
        }
        queued -= size(shared.batch());
        busy++;
      } catch (InterruptedException e) {
        return;
      } finally {
        lock.unlock();
      }
      try {
        exportWithRetry(shared.batch());
      } catch (InterruptedException e) {
        dropped(shared.batch(), "the exporter stopped while sending");
        Thread.currentThread().interrupt();
      } finally {
        shared.release();
        lock.lock();
        try {
          busy--;
          changed.signalAll();
        } finally {
          lock.unlock();
        }
      }
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
    }
  }

  private void exportWithRetry(Batch batch) throws InterruptedException {
    long start = System.nanoTime();
    Backoff backoff = new Backoff(retryConfig, start);
    while (true) {
      ExportResult result;
      try {
        result = exporter.export(batch, System.nanoTime() + timeoutNanos);
      } catch (RuntimeException | OutOfMemoryError e) {
        // An OutOfMemoryError that gets here is one the JVM did not end the process for
        // (-XX:+ExitOnOutOfMemoryError): off-heap memory, such as Netty's direct buffers for the
        // frames of a send, which frees up as the sends in flight complete. The batch is kept and
        // retried like any failed send; a consumer thread that died of it would lose the batch and
        // leave the queue with one consumer less.
        result = ExportResult.retryable("exporter failed: " + e, 0);
        logger.log(Level.WARNING, "Exporter failed unexpectedly", e);
      } catch (Error e) {
        // A bug in the exporter: the batch is counted as failed, and the thread goes on with the
        // next one instead of dying with it.
        dropped(batch, "exporter failed: " + e);
        logger.log(Level.SEVERE, "Exporter failed with an error", e);
        return;
      }
      switch (result.outcome()) {
        case SUCCESS:
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
          return;
        case PERMANENT:
          dropped(batch, "permanent error: " + result.message());
          return;
        default:
          if (!retryConfig.enabled()) {
            dropped(batch, "retries disabled: " + result.message());
            return;
          }
          long now = System.nanoTime();
          long delay = backoff.nextDelayNanos(now);
          if (delay == Backoff.STOP) {
            dropped(
                batch,
                "no more retries after " + elapsedText(now - start) + ": " + result.message());
            return;
          }
          delay = Math.max(delay, result.retryAfterNanos());
          if (now + delay - stopDeadlineNanos > 0) {
            dropped(batch, "shutting down: " + result.message());
            return;
          }
          retryLog.log(
              "Sending failed, will retry in "
                  + TimeUnit.NANOSECONDS.toMillis(delay)
                  + " ms: "
                  + result.message());
          TimeUnit.NANOSECONDS.sleep(delay);
      }
    }
  }

  private static String elapsedText(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
  }

  private void dropped(Batch batch, String why) {
    telemetry.failed(batch.signal(), batch.unitCount());
    dropLog.log("Dropping " + batch.unitCount() + " " + batch.signal().unitName() + ": " + why);
  }

  /**
   * Stops taking batches, lets the consumers drain the queue until the deadline, then stops them;
   * what is left is dropped and counted.
   */
  public void shutdown(long deadlineNanos) throws InterruptedException {
    stopDeadlineNanos = deadlineNanos;
    lock.lock();
    try {
      stopping = true;
      changed.signalAll();
      while ((!queue.isEmpty() || busy > 0) && deadlineNanos - System.nanoTime() > 0) {
        changed.awaitNanos(deadlineNanos - System.nanoTime());
      }
      while (!queue.isEmpty()) {
        SharedBatch left = queue.pollFirst();
        queued -= size(left.batch());
        dropped(left.batch(), "the shutdown deadline passed");
        left.release();
      }
    } finally {
      lock.unlock();
    }
    for (Thread consumer : consumers) {
      consumer.interrupt();
    }
    for (Thread consumer : consumers) {
      consumer.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
    }
    exporter.shutdown(deadlineNanos);
  }
}
