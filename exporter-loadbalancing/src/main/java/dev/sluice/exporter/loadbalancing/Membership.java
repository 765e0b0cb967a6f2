package dev.sluice.exporter.loadbalancing;

import dev.sluice.component.Exporter;
import dev.sluice.component.Scheduler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The backends the resolver lists, each with its exporter, and the ring over them. A change keeps
 * the exporters of backends still listed, starts those of new ones, and retires the others.
 *
 * <p>Retiring a backend: it is marked removed as soon as the new ring is out, so that nothing new
 * is sent to it and whatever is still being sent to it goes to the next backend on the ring for its
 * key, or over the new ring. Its exporter is stopped as soon as the last send in flight to it has
 * ended, or at its deadline ({@code retireAfterNanos} on the scheduler's clock) with those sends
 * cut; a cut send fails retryably and its part is re-routed, never dropped. Stops run in parallel,
 * up to {@link #STOPPING_THREADS} at once, so retirement keeps up with any churn of the list. At
 * most {@code maxRetiring} removed backends wait for retirement once a change is made: past that,
 * the oldest are cut at once, and the change waits until they are stopped.
 */
final class Membership {
  /** The default bound on removed backends whose exporters are not stopped yet. */
  static final int MAX_RETIRING = 64;

  /** How many exporters of removed backends are stopped at once. */
  static final int STOPPING_THREADS = 8;

  /** Makes and starts the exporter of one backend, given its name with a port. */
  @FunctionalInterface
  interface ExporterMaker {
    Exporter start(String endpoint) throws Exception;
  }

  /** The ring and its backends, in the ring's order; replaced whole on every change. */
  record Snapshot(HashRing ring, Backend[] backends) {
    static final Snapshot EMPTY = new Snapshot(new HashRing(List.of()), new Backend[0]);

    int size() {
      return backends.length;
    }
  }

  /** A removed backend whose exporter is not stopped yet. */
  private static final class Retirement {
    final Backend backend;

    /** Guarded by {@link Membership#retiringLock}. */
    boolean stopping;

    volatile Scheduler.Timer deadline;

    Retirement(Backend backend) {
      this.backend = backend;
    }
  }

  private final ExporterMaker maker;
  private final long retireAfterNanos;
  private final int maxRetiring;
  private final Scheduler scheduler;
  private final Logger logger;
  private final ThreadPoolExecutor stoppers;
  private volatile Snapshot current = Snapshot.EMPTY;
  private boolean stopped;

  /**
   * Removed backends whose exporters are not stopped yet, oldest first. Its own lock, not this
   * object's: the sending threads that end the last send to a removed backend must not wait for a
   * change that is starting exporters.
   */
  private final Object retiringLock = new Object();

  private final LinkedHashMap<Backend, Retirement> retiring = new LinkedHashMap<>();

  /**
   * @param retireAfterNanos how long a removed backend's exporter is kept for the sends in flight
   * @param maxRetiring the most removed backends waiting for retirement after a change
   * @param scheduler the clock of the retirement deadlines
   */
  Membership(
      ExporterMaker maker,
      long retireAfterNanos,
      int maxRetiring,
      Scheduler scheduler,
      Logger logger,
      String threadName) {
    this.maker = maker;
    this.retireAfterNanos = retireAfterNanos;
    this.maxRetiring = maxRetiring;
    this.scheduler = scheduler;
    this.logger = logger;
    this.stoppers =
        new ThreadPoolExecutor(
            STOPPING_THREADS,
            STOPPING_THREADS,
            10,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            task -> {
              Thread thread = new Thread(task, threadName);
              thread.setDaemon(true);
              return thread;
            });
    stoppers.allowCoreThreadTimeOut(true);
  }

  Snapshot current() {
    return current;
  }

  /** Removed backends whose exporters are not stopped yet. */
  int retiringCount() {
    synchronized (retiringLock) {
      return retiring.size();
    }
  }

  /** The resolver's new list, sorted and without duplicates. */
  synchronized void update(List<String> names) {
    if (stopped) {
      return;
    }
    Snapshot old = current;
    Map<String, Backend> kept = new HashMap<>();
    for (Backend backend : old.backends()) {
      kept.put(backend.name, backend);
    }
    Backend[] backends = new Backend[names.size()];
    int count = 0;
    for (String name : names) {
      Backend backend = kept.remove(name);
      if (backend == null) {
        try {
          backend = new Backend(name, maker.start(BackendAddress.withPort(name)));
        } catch (Exception e) {
          // Left off the ring, as in the Go collector: its keys go to the others.
          logger.log(Level.SEVERE, "Could not start the exporter for backend " + name, e);
          continue;
        }
      }
      backends[count++] = backend;
    }
    if (count < backends.length) {
      backends = Arrays.copyOf(backends, count);
    }
    List<String> placed = new ArrayList<>(count);
    for (Backend backend : backends) {
      placed.add(backend.name);
    }
    current = new Snapshot(new HashRing(placed), backends);
    // Marked once the new ring is out: a send that then finds its backend removed finds the new
    // ring too, to place its part on. Until marked, a send on the old ring still reaches it.
    for (Backend gone : kept.values()) {
      retire(gone);
    }
    logger.info("Backends now " + placed + (kept.isEmpty() ? "" : ", removed " + kept.keySet()));
    keepRetiringBounded();
  }

  private void retire(Backend gone) {
    Retirement retirement = new Retirement(gone);
    synchronized (retiringLock) {
      retiring.put(gone, retirement);
    }
    // The timer only hands the stop over: timer tasks must not block.
    retirement.deadline = scheduler.schedule(() -> stop(retirement, true), retireAfterNanos);
    gone.markRemoved(() -> stop(retirement, false));
  }

  /** Cuts the oldest retirements past the bound, and waits until they are stopped. */
  private void keepRetiringBounded() {
    long waitUntil = System.nanoTime() + retireAfterNanos + TimeUnit.SECONDS.toNanos(1);
    List<Retirement> cut = new ArrayList<>();
    synchronized (retiringLock) {
      int over = retiring.size() - maxRetiring;
      for (Retirement retirement : retiring.values()) {
        if (over-- <= 0) {
          break;
        }
        if (!retirement.stopping) {
          cut.add(retirement);
        }
      }
    }
    for (Retirement retirement : cut) {
      stop(retirement, true);
    }
    synchronized (retiringLock) {
      while (retiring.size() > maxRetiring) {
        long left = waitUntil - System.nanoTime();
        if (left <= 0) {
          logger.warning(
              retiring.size() + " removed backends are still being stopped, over " + maxRetiring);
          return;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(retiringLock, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /**
   * Stops a retiring backend's exporter on a stopping thread, once: gracefully when its sends have
   * ended, or cutting the sends still in flight ({@code cut}), which then fail and are re-routed.
   */
  private void stop(Retirement retirement, boolean cut) {
    synchronized (retiringLock) {
      if (retirement.stopping) {
        return;
      }
      retirement.stopping = true;
    }
    Scheduler.Timer deadline = retirement.deadline;
    if (deadline != null) {
      deadline.cancel();
    }
    if (cut) {
      logger.info(
          "Stopping removed backend " + retirement.backend.name + " with sends still in flight");
    }
    try {
      stoppers.execute(() -> stopNow(retirement, cut));
    } catch (RejectedExecutionException e) {
      // The load balancer is stopping and takes no more tasks: this thread stops it, cutting.
      stopNow(retirement, true);
    }
  }

  private void stopNow(Retirement retirement, boolean cut) {
    long now = System.nanoTime();
    stop(retirement.backend, cut ? now : now + retireAfterNanos);
    synchronized (retiringLock) {
      retiring.remove(retirement.backend);
      retiringLock.notifyAll();
    }
  }

  private void stop(Backend backend, long deadlineNanos) {
    try {
      backend.exporter.shutdown(deadlineNanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      logger.log(Level.WARNING, "Stopping the exporter of backend " + backend.name + " failed", e);
    }
  }

  /** Stops every exporter, the retiring ones included, by {@code deadlineNanos}. */
  void shutdown(long deadlineNanos) throws InterruptedException {
    Snapshot last;
    synchronized (this) {
      stopped = true;
      last = current;
      current = Snapshot.EMPTY;
    }
    stoppers.shutdown();
    for (Backend backend : last.backends()) {
      backend.markRemoved();
      stop(backend, deadlineNanos);
    }
    List<Retirement> left = new ArrayList<>();
    synchronized (retiringLock) {
      for (Retirement retirement : retiring.values()) {
        if (!retirement.stopping) {
          retirement.stopping = true;
          left.add(retirement);
        }
      }
    }
    for (Retirement retirement : left) {
      Scheduler.Timer deadline = retirement.deadline;
      if (deadline != null) {
        deadline.cancel();
      }
      stop(retirement.backend, deadlineNanos);
      synchronized (retiringLock) {
        retiring.remove(retirement.backend);
      }
    }
    stoppers.awaitTermination(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
  }
}
