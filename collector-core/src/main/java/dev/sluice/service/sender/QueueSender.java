package dev.sluice.service.sender;

import dev.sluice.component.QueueConfig;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.Batch;
import dev.sluice.service.SharedBatch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The head of a sending chain: batches wait here for the chain's sending threads, which send each
 * through the rest of the chain. Taking a batch never blocks the caller, which may be an event loop
 * or a timer.
 *
 * <p>Two bounds, one class:
 *
 * <ul>
 *   <li>{@link #queued}, the {@code sending_queue}: {@code num_consumers} threads, and room while
 *       fewer than {@code queue_size} units (by its sizer) wait;
 *   <li>{@link #direct}, without a sending queue: a few threads, and room only while one of them is
 *       free, so a batch is sent at once or refused at once.
 * </ul>
 *
 * <p>A full stage never drops: {@link #hasCapacity()} turns false and the pipeline keeps the batch.
 * Data is dropped here (and counted) only when the stage is stopping or its shutdown deadline
 * passes.
 */
final class QueueSender {
  /** How long past the shutdown deadline an interrupted thread may take to count what it held. */
  private static final long STOP_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Sender next;
  private final ExporterTelemetry telemetry;
  private final RateLimitedLog dropLog;
  private final String threadName;
  private final int threads;
  private final long capacity;
  private final QueueConfig.Sizer sizer;
  private final boolean inFlightTakesRoom;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<SharedBatch> queue = new ArrayDeque<>();
  private final List<Thread> running = new ArrayList<>();

  /**
   * The threads waiting for a batch, the one that went idle last first. A batch wakes that one:
   * under a load one thread can carry, the same thread sends every batch and the others never grow
   * their marshal buffers, which each sending thread keeps for itself.
   */
  private final ArrayDeque<Condition> idle = new ArrayDeque<>();

  private long queued;
  private int busy;
  private boolean stopping;

  private QueueSender(
      Sender next,
      ExporterTelemetry telemetry,
      Logger logger,
      String threadName,
      int threads,
      long capacity,
      QueueConfig.Sizer sizer,
      boolean inFlightTakesRoom) {
    this.next = next;
    this.telemetry = telemetry;
    this.dropLog = new RateLimitedLog(logger, Level.WARNING, 10_000);
    this.threadName = threadName;
    this.threads = threads;
    this.capacity = capacity;
    this.sizer = sizer;
    this.inFlightTakesRoom = inFlightTakesRoom;
  }

  /** The {@code sending_queue}: batches wait for {@code num_consumers} threads. */
  static QueueSender queued(
      QueueConfig config,
      Sender next,
      ExporterTelemetry telemetry,
      Logger logger,
      String threadName) {
    return new QueueSender(
        next,
        telemetry,
        logger,
        threadName,
        config.numConsumers(),
        config.queueSize(),
        config.sizer(),
        false);
  }

  /** Without a queue: room only while one of {@code slots} threads is free to send at once. */
  static QueueSender direct(
      int slots, Sender next, ExporterTelemetry telemetry, Logger logger, String threadName) {
    return new QueueSender(
        next, telemetry, logger, threadName, slots, slots, QueueConfig.Sizer.REQUESTS, true);
  }

  /** Starts the sending threads. */
  void start() {
    for (int i = 0; i < threads; i++) {
      Thread thread = new Thread(this::sendLoop, threadName + "-" + i);
      thread.setDaemon(true);
      running.add(thread);
      thread.start();
    }
  }

  /** Whether there is room for another batch now. */
  boolean hasCapacity() {
    lock.lock();
    try {
      return !stopping && queued + (inFlightTakesRoom ? busy : 0) < capacity;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Takes one share of a batch, released once it is sent or dropped; never waits. Call after {@link
   * #hasCapacity()}: pipelines that checked at the same time may overfill the stage by their
   * batches, which then wait for a thread.
   */
  void send(SharedBatch shared) {
    lock.lock();
    try {
      if (!stopping) {
        queue.addLast(shared);
        queued += size(shared.batch());
        Condition waiting = idle.pollFirst();
        if (waiting != null) {
          waiting.signal();
        }
        return;
      }
    } finally {
      lock.unlock();
    }
    Batch batch = shared.batch();
    telemetry.enqueueFailed(batch.signal(), batch.unitCount());
    dropLog.log(
        "Dropping "
            + batch.unitCount()
            + " "
            + batch.signal().unitName()
            + ": exporter is stopping");
    batch.abandonRequests();
    shared.release();
  }

  /** Units waiting for a thread, in the sizer's terms. */
  long queued() {
    lock.lock();
    try {
      return queued;
    } finally {
      lock.unlock();
    }
  }

  /** The bound on {@link #queued()} (with a direct stage, on waiting and sending batches). */
  long capacity() {
    return capacity;
  }

  private long size(Batch batch) {
    switch (sizer) {
      case ITEMS:
        return batch.unitCount();
      case BYTES:
        return batch.marshaledSizeEstimate();
      default:
        return 1;
    }
  }

  private void sendLoop() {
    Condition mine = lock.newCondition();
    while (true) {
      SharedBatch shared;
      lock.lock();
      try {
        while (queue.isEmpty() && !stopping) {
          idle.addFirst(mine);
          try {
            mine.await();
          } finally {
            idle.remove(mine); // a spurious wake-up, or an interrupt, leaves it listed
          }
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
      boolean interrupted = false;
      try {
        next.send(shared.batch());
      } catch (InterruptedException e) {
        // The next stage counted the batch as dropped; this thread is asked to end.
        interrupted = true;
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
      if (interrupted || Thread.currentThread().isInterrupted()) {
        return;
      }
    }
  }

  /**
   * Takes nothing more, lets the threads send what waits until the deadline, then stops them; what
   * is left is dropped and counted before this returns (a thread that was sending gets up to a
   * second past the deadline to count its batch).
   */
  void shutdown(long deadlineNanos) throws InterruptedException {
    lock.lock();
    try {
      stopping = true;
      changed.signalAll();
      for (Condition waiting : idle) {
        waiting.signal();
      }
      while ((!queue.isEmpty() || busy > 0) && deadlineNanos - System.nanoTime() > 0) {
        changed.awaitNanos(deadlineNanos - System.nanoTime());
      }
      while (!queue.isEmpty()) {
        SharedBatch left = queue.pollFirst();
        Batch batch = left.batch();
        queued -= size(batch);
        telemetry.failed(batch.signal(), batch.unitCount());
        dropLog.log(
            "Dropping "
                + batch.unitCount()
                + " "
                + batch.signal().unitName()
                + ": the shutdown deadline passed");
        batch.abandonRequests();
        left.release();
      }
    } finally {
      lock.unlock();
    }
    for (Thread thread : running) {
      thread.interrupt();
    }
    // An interrupted thread still counts and releases the batch it was sending; it gets a moment
    // past the deadline to do so, so that what shutdown leaves behind is counted when it returns.
    long now = System.nanoTime();
    long joinByNanos =
        deadlineNanos - now > STOP_GRACE_NANOS ? deadlineNanos : now + STOP_GRACE_NANOS;
    for (Thread thread : running) {
      long leftNanos = joinByNanos - System.nanoTime();
      if (leftNanos > 0) {
        TimeUnit.NANOSECONDS.timedJoin(thread, leftNanos);
      }
    }
  }
}
