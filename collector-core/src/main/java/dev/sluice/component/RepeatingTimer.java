package dev.sluice.component;

import java.util.concurrent.locks.Lock;

/**
 * A task run every interval on a {@link Scheduler}, under a component's lock, until stopped: the
 * flush and clean-up loops of components that keep state. The next run is scheduled when one ends
 * (whatever it threw), so runs never overlap and a slow run delays the next instead of piling runs
 * up. Starting, stopping and every run take {@code lock}; a run that finds the timer stopped does
 * nothing, so no run starts after {@link #stop} returns.
 */
public final class RepeatingTimer {
  private final Scheduler scheduler;
  private final long intervalNanos;
  private final Lock lock;
  private final Runnable task;
  private Scheduler.Timer timer;
  private boolean stopped;

  public RepeatingTimer(Scheduler scheduler, long intervalNanos, Lock lock, Runnable task) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("a repeating timer needs an interval above 0");
    }
    this.scheduler = scheduler;
    this.intervalNanos = intervalNanos;
    this.lock = lock;
    this.task = task;
  }

  /** Schedules the first run, an interval from now; nothing once started or stopped. */
  public void start() {
    lock.lock();
    try {
      if (!stopped && timer == null) {
        timer = scheduler.schedule(this::run, intervalNanos);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Cancels the next run for good. */
  public void stop() {
    lock.lock();
    try {
      stopped = true;
      if (timer != null) {
        timer.cancel();
        timer = null;
      }
    } finally {
      lock.unlock();
    }
  }

  private void run() {
    lock.lock();
    try {
      timer = null;
      if (stopped) {
        return;
      }
      try {
        task.run();
      } finally {
        timer = scheduler.schedule(this::run, intervalNanos);
      }
    } finally {
      lock.unlock();
    }
  }
}
