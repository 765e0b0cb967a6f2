package dev.sluice.processor.resourcedetection;

import dev.sluice.component.Scheduler;
import java.time.Duration;
import java.util.PriorityQueue;

/**
 * A {@link Scheduler} whose clock moves only when a test {@linkplain #advance advances} it or a
 * thread {@linkplain #sleep sleeps}: a sleep moves the clock by its length at once, so retries take
 * no real time, and a timer (the start timeout) runs, on the thread that moved the clock past it,
 * only then. Nothing here depends on how fast the machine is.
 */
final class VirtualScheduler implements Scheduler {
  private record Task(long dueNanos, long sequence, Runnable action) {}

  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>(
          (a, b) ->
              a.dueNanos != b.dueNanos
                  ? Long.compare(a.dueNanos, b.dueNanos)
                  : Long.compare(a.sequence, b.sequence));
  private long nowNanos;
  private long sequence;

  @Override
  public synchronized long nanoTime() {
    return nowNanos;
  }

  @Override
  public synchronized Timer schedule(Runnable action, long delayNanos) {
    Task task = new Task(nowNanos + Math.max(0, delayNanos), sequence++, action);
    tasks.add(task);
    return () -> {
      synchronized (this) {
        tasks.remove(task);
      }
    };
  }

  /** Moves the clock by {@code delayNanos} at once, as {@link #advance} does. */
  @Override
  public void sleep(long delayNanos) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    advance(delayNanos);
  }

  /** Moves the clock {@code nanos} on, running every timer that falls due on the way. */
  void advance(long nanos) {
    long target;
    synchronized (this) {
      target = nowNanos + nanos;
    }
    while (true) {
      Task task;
      synchronized (this) {
        task = tasks.peek();
        if (task == null || task.dueNanos > target) {
          nowNanos = Math.max(nowNanos, target);
          return;
        }
        tasks.poll();
        nowNanos = Math.max(nowNanos, task.dueNanos);
      }
      task.action.run();
    }
  }

  void advance(Duration duration) {
    advance(duration.toNanos());
  }
}
