package dev.sluice.exporter.loadbalancing;

import dev.sluice.component.Exporter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The backends the resolver lists, each with its exporter, and the ring over them. A change keeps
 * the exporters of backends still listed, starts those of new ones, and retires the others: they
 * are marked removed at once, so that whatever is still being sent to one goes to the next backend
 * on the ring for its key, and their exporters are shut down after the sends in flight had time to
 * finish.
 */
final class Membership {
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

  private final ExporterMaker maker;
  private final long retireAfterNanos;
  private final Logger logger;
  private final ExecutorService retirements;
  private volatile Snapshot current = Snapshot.EMPTY;
  private boolean stopped;

  /** Removed backends whose exporters are not stopped yet. */
  private final Set<Backend> retiring = new HashSet<>();

  /**
   * @param retireAfterNanos how long a removed backend's exporter is kept for the sends in flight
   */
  Membership(ExporterMaker maker, long retireAfterNanos, Logger logger, String threadName) {
    this.maker = maker;
    this.retireAfterNanos = retireAfterNanos;
    this.logger = logger;
    this.retirements =
        Executors.newSingleThreadExecutor(
            task -> {
              Thread thread = new Thread(task, threadName);
              thread.setDaemon(true);
              return thread;
            });
  }

  Snapshot current() {
    return current;
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
    // Marked before the new ring is out: a send to a removed backend from then on is re-routed.
    for (Backend gone : kept.values()) {
      gone.markRemoved();
    }
    current = new Snapshot(new HashRing(placed), backends);
    logger.info("Backends now " + placed + (kept.isEmpty() ? "" : ", removed " + kept.keySet()));
    for (Backend gone : kept.values()) {
      retiring.add(gone);
      retirements.execute(() -> retire(gone));
    }
  }

  private void retire(Backend backend) {
    try {
      TimeUnit.NANOSECONDS.sleep(retireAfterNanos);
    } catch (InterruptedException e) {
      // The load balancer is stopping: the exporter is stopped now rather than later.
    }
    stop(backend, System.nanoTime() + retireAfterNanos);
    synchronized (this) {
      retiring.remove(backend);
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

  /** Stops every exporter, the retired ones included, by {@code deadlineNanos}. */
  void shutdown(long deadlineNanos) throws InterruptedException {
    Snapshot last;
    List<Backend> retired;
    synchronized (this) {
      stopped = true;
      last = current;
      current = Snapshot.EMPTY;
      retired = new ArrayList<>(retiring);
    }
    retirements.shutdownNow();
    for (Backend backend : last.backends()) {
      backend.markRemoved();
      stop(backend, deadlineNanos);
    }
    for (Backend backend : retired) {
      stop(backend, deadlineNanos);
    }
    retirements.awaitTermination(
        Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
  }
}
