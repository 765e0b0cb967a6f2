package dev.sluice.testkit;

import dev.sluice.component.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Scheduler} whose clock moves only when a test calls {@link #advance}: due tasks then run
 * on the test's thread, in order of their due time. The clock starts at {@link System#nanoTime()}
 * so that deadlines taken from the system clock (shutdown) still compare sensibly.
 *
 * <p>One made by {@link #sleepsAdvance()} also moves when the code under test {@linkplain #sleep
 * sleeps}: the clock moves by the sleep's length at once, running the timers due on the way on the
 * sleeping thread, so retries take no real time and a timeout fires only when the clock passes it.
 */
public final class ManualScheduler implements Scheduler {
  private record Task(long dueNanos, long sequence, Runnable action) {}

  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>(
          (a, b) ->
              a.dueNanos != b.dueNanos
                  ? Long.compare(a.dueNanos, b.dueNanos)
                  : Long.compare(a.sequence, b.sequence));
  private long nowNanos = System.nanoTime();
  private long sequence;
  private boolean sleepsAdvance;

  /** A scheduler whose {@link #sleep} moves its clock instead of waiting. */
  public static ManualScheduler sleepsAdvance() {
    ManualScheduler scheduler = new ManualScheduler();
    scheduler.sleepsAdvance = true;
    return scheduler;
  }

  @Override
  public void sleep(long delayNanos) throws InterruptedException {
    if (!sleepsAdvance) {
      Scheduler.super.sleep(delayNanos);
      return;
    }
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    advance(delayNanos);
  }

  @Override
  public synchronized long nanoTime() {
    return nowNanos;
  }

  @Override
  public synchronized Timer schedule(Runnable action, long delayNanos) {
    Task task = new Task(nowNanos + Math.max(0, delayNanos), sequence++, action);
    tasks.add(task);
    notifyAll();
    return () -> {
      synchronized (this) {
        tasks.remove(task);
      }
    };
  }

  /** Moves the clock {@code nanos} on, running every task that falls due on the way. */
  public void advance(long nanos) {
    long target;
    synchronized (this) {
      target = nowNanos + nanos;
    }
    while (true) {
      Task task;
      synchronized (this) {
        task = tasks.peek();
        if (task == null || task.dueNanos - target > 0) {
          nowNanos = Math.max(nowNanos, target);
          return;
        }
        tasks.poll();
        nowNanos = Math.max(nowNanos, task.dueNanos);
      }
      task.action.run();
    }
  }

  public void advance(long amount, TimeUnit unit) {
    advance(unit.toNanos(amount));
  }

  public void advance(java.time.Duration duration) {
    advance(duration.toNanos());
  }

  /** Timers set and neither run nor cancelled yet. */
  public synchronized int pendingTimers() {
    return tasks.size();
  }

  /** How far in the future each pending task is due, soonest first. */
  public synchronized List<Long> pendingDelaysNanos() {
    List<Task> sorted = new ArrayList<>(tasks);
    sorted.sort(tasks.comparator());
    List<Long> delays = new ArrayList<>();
    sorted.forEach(task -> delays.add(task.dueNanos - nowNanos));
    return delays;
  }

  /**
   * Waits (in real time, at most 10 s) until at least {@code count} tasks are pending, for tests
   * whose other threads set timers; false if they did not.
   */
  public synchronized boolean awaitPending(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (tasks.size() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }
}
