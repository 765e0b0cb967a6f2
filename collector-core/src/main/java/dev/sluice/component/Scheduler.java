package dev.sluice.component;

import java.util.concurrent.CountDownLatch;

/**
 * The clock and timers a component uses: a batch processor's flush timer, an exporter's retry
 * delays and attempt deadlines. The service owns one and hands it to every component in {@link
 * ComponentSettings}, so that tests can run them on a manual clock instead of sleeping.
 *
 * <p>Tasks run on the scheduler's own thread, one at a time: a task must not block, or it holds up
 * every other timer of the collector.
 */
public interface Scheduler {
  /** A task that has been scheduled. */
  interface Timer {
    /** Stops the task from running, if it has not run yet. */
    void cancel();
  }

  /** Now, in nanoseconds on this scheduler's clock; {@link System#nanoTime()} in the collector. */
  long nanoTime();

  /** Runs {@code task} once, {@code delayNanos} from now. */
  Timer schedule(Runnable task, long delayNanos);

  /**
   * Waits {@code delayNanos} on this scheduler's clock. For threads that may wait (an exporter's
   * sending threads), never for an event loop or a timer task.
   */
  default void sleep(long delayNanos) throws InterruptedException {
    CountDownLatch due = new CountDownLatch(1);
    Timer timer = schedule(due::countDown, delayNanos);
    try {
      due.await();
    } finally {
      timer.cancel();
    }
  }

  /**
   * One scheduler for components made outside a collector (tools, tests of other parts), started on
   * first use; a collector passes its own.
   */
  static Scheduler shared() {
    return ThreadScheduler.SHARED;
  }
}
