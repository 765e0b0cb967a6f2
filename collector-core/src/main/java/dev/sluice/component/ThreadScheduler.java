package dev.sluice.component;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Scheduler} on {@link System#nanoTime()} with one daemon thread. Cancelled tasks are
 * removed at once, so a timer that is set and cancelled per batch leaves nothing behind.
 */
public final class ThreadScheduler implements Scheduler, AutoCloseable {
  static final ThreadScheduler SHARED = new ThreadScheduler("sluice-timer-shared");

  private final ScheduledThreadPoolExecutor executor;

  /** A scheduler whose thread is named {@code threadName}. */
  public ThreadScheduler(String threadName) {
    executor =
        new ScheduledThreadPoolExecutor(
            1,
            task -> {
              Thread thread = new Thread(task, threadName);
              thread.setDaemon(true);
              return thread;
            });
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  /**
   * Once the scheduler is closed, the task never runs (and a {@link #sleep} lasts until its thread
   * is interrupted).
   */
  @Override
  public Timer schedule(Runnable task, long delayNanos) {
    ScheduledFuture<?> future;
    try {
      future = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      return () -> {};
    }
    return () -> future.cancel(false);
  }

  /** Stops the thread; tasks not yet run never run. */
  @Override
  public void close() {
    executor.shutdownNow();
  }
}
