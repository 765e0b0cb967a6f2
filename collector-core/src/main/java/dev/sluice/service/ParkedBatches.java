package dev.sluice.service;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.pdata.Batch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Batches of logged requests that a pipeline refused as full once they were on disk. Such a request
 * was answered OK (it is in the log), so it is not refused to its client: its batch waits here,
 * holding its place in the memory budget, and is offered to that pipeline again until it takes it.
 * Meanwhile the budget fills, so the receivers refuse new requests before they are logged, and a
 * refusal always means the request will not be delivered.
 *
 * <p>One thread offers the batches again, in the order they were parked, every few milliseconds
 * while any wait. When it stops (the collector stops), what is still parked stays owed in the log
 * and is delivered after the restart.
 */
final class ParkedBatches implements AutoCloseable {
  private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  private static final long STOP_MILLIS = 10_000;

  private record Parked(BatchConsumer pipeline, Batch batch) {}

  private final PipelineFailures failures;
  private final Thread thread;
  // Guarded by this.
  private final ArrayDeque<Parked> parked = new ArrayDeque<>();
  private boolean closed;

  ParkedBatches(PipelineFailures failures) {
    this.failures = failures;
    this.thread = new Thread(this::run, "sluice-durable-parked");
    thread.setDaemon(true);
    thread.start();
  }

  /** Offers {@code batch} to {@code pipeline} again until it takes it; it is this one's now. */
  void park(BatchConsumer pipeline, Batch batch) {
    synchronized (this) {
      if (!closed) {
        parked.add(new Parked(pipeline, batch));
        notifyAll();
        return;
      }
    }
    leaveOwed(batch);
  }

  /** Batches waiting. */
  synchronized int size() {
    return parked.size();
  }

  private void run() {
    try {
      while (true) {
        List<Parked> round;
        synchronized (this) {
          while (parked.isEmpty() && !closed) {
            wait();
          }
          if (closed) {
            return;
          }
          round = new ArrayList<>(parked);
          parked.clear();
        }
        List<Parked> refused = new ArrayList<>();
        for (Parked next : round) {
          if (!offer(next)) {
            refused.add(next);
          }
        }
        synchronized (this) {
          for (int i = refused.size() - 1; i >= 0; i--) {
            parked.addFirst(refused.get(i));
          }
          if (!refused.isEmpty() && !closed) {
            TimeUnit.NANOSECONDS.timedWait(this, RETRY_NANOS);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Offers one batch again; false when the pipeline is still full. */
  private boolean offer(Parked next) {
    Admission admission;
    try {
      admission = next.pipeline.consume(next.batch);
    } catch (RuntimeException | StackOverflowError e) {
      next.batch.clear();
      failures.failed("a pipeline failed on a logged request offered again; it is set aside", e);
      return true;
    }
    switch (admission) {
      case ACCEPTED:
        return true;
      case FULL:
        return false;
      default:
        // Stopping: left owed, for the next start.
        leaveOwed(next.batch);
        return true;
    }
  }

  private static void leaveOwed(Batch batch) {
    batch.abandonRequests();
    batch.clear();
  }

  /** Stops offering; what is still parked stays owed in the log, for the next start. */
  @Override
  public void close() throws InterruptedException {
    List<Parked> left;
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    thread.join(STOP_MILLIS);
    synchronized (this) {
      left = new ArrayList<>(parked);
      parked.clear();
    }
    left.forEach(next -> leaveOwed(next.batch));
  }
}
