package dev.sluice.exporter.loadbalancing;

import dev.sluice.component.Scheduler;
import java.util.PriorityQueue;

/**
 * A {@link Scheduler} whose time moves only when the test calls {@link #advance}; due tasks then
 * run on the test's thread, soonest first. It starts at {@link System#nanoTime()}.
 */
final class ManualClock implements Scheduler {
  private record Task(long dueNanos, long sequence, Runnable action) {}

  private final PriorityQueue<Task> tasks =
      new PriorityQueue<>(
          (a, b) ->
              a.dueNanos != b.dueNanos
                  ? Long.compare(a.dueNanos, b.dueNanos)
                  : Long.compare(a.sequence, b.sequence));
  private long nowNanos = System.nanoTime();
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

  /** Timers set and neither run nor cancelled yet. */
  synchronized int pendingTimers() {
    return tasks.size();
  }

  /** Moves the time {@code nanos} on, running every task that falls due meanwhile. */
  void advance(long nanos) {
    long target;
    synchronized (this) {
      target = nowNanos + nanos;
    }
    while (true) {
      Task task;
      synchronized (this) {
        task = tasks.peek();
        if (task == null || task.dueNanos - target > 0) {
          nowNanos = target;
          return;
        }
        tasks.poll();
        nowNanos = task.dueNanos;
      }
      task.action.run();
    }
  }
}
