package dev.sluice.exporter.loadbalancing;

import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.RateLimitedLog;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code resolver.dns}: the backends are the addresses {@code hostname} resolves to, each with
 * {@code port} when one is configured ({@code 10.0.0.1:4317}, {@code [fd00::1]:4317}), looked up at
 * start and every {@code interval} after, each lookup given {@code timeout}. A failed or late
 * lookup keeps the list the last good one gave, as in the Go collector.
 */
final class DnsBackendResolver implements BackendResolver {
  /** How often a failed lookup is logged at most. */
  private static final long LOG_INTERVAL_MILLIS = 30_000;

  /** Resolves a name to its addresses; {@link InetAddress#getAllByName} outside tests. */
  @FunctionalInterface
  interface Lookup {
    InetAddress[] addresses(String hostname) throws UnknownHostException;
  }

  private final String hostname;
  private final String port;
  private final long intervalNanos;
  private final long timeoutNanos;
  private final Lookup lookup;
  private final Scheduler scheduler;
  private final RateLimitedLog failureLog;
  private final String threadName;
  private final ExecutorService lookups;
  private volatile boolean stopped;
  private volatile Thread refresher;
  private List<String> last;

  DnsBackendResolver(
      LoadBalancingExporterConfig.DnsResolver config,
      Lookup lookup,
      Scheduler scheduler,
      Logger logger,
      String threadName) {
    this.hostname = config.hostname();
    this.port = config.port();
    this.intervalNanos = config.interval().toNanos();
    this.timeoutNanos = config.timeout().toNanos();
    this.lookup = lookup;
    this.scheduler = scheduler;
    this.failureLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
    this.threadName = threadName;
    // Lookups block and cannot be interrupted: each runs on a daemon thread of its own pool, so a
    // lookup past its timeout is left to finish without holding up the next refresh.
    this.lookups =
        Executors.newCachedThreadPool(
            task -> {
              Thread thread = new Thread(task, threadName + "-lookup");
              thread.setDaemon(true);
              return thread;
            });
  }

  @Override
  public void start(Consumer<List<String>> listener) {
    refresh(listener);
    Thread thread =
        new Thread(
            () -> {
              try {
                while (!stopped) {
                  scheduler.sleep(intervalNanos);
                  if (!stopped) {
                    refresh(listener);
                  }
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            threadName);
    thread.setDaemon(true);
    refresher = thread;
    thread.start();
  }

  /** One lookup; the listener hears of a changed list. */
  void refresh(Consumer<List<String>> listener) {
    if (stopped) {
      return;
    }
    List<String> backends;
    try {
      backends = resolve();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (Exception e) {
      failureLog.log(
          "Could not resolve " + hostname + ", keeping the backends it had: " + describe(e));
      return;
    }
    if (!backends.equals(last) && !stopped) {
      last = backends;
      listener.accept(backends);
    }
  }

  private List<String> resolve() throws Exception {
    Future<InetAddress[]> pending = lookups.submit(() -> lookup.addresses(hostname));
    InetAddress[] addresses;
    try {
      addresses = pending.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      pending.cancel(true);
      throw new TimeoutException(
          "no answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
    TreeSet<String> names = new TreeSet<>();
    for (InetAddress address : addresses) {
      String host =
          address instanceof Inet6Address
              ? "[" + address.getHostAddress() + "]"
              : address.getHostAddress();
      names.add(port.isEmpty() ? host : host + ":" + port);
    }
    return List.copyOf(new ArrayList<>(names));
  }

  private static String describe(Exception e) {
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }

  @Override
  public void shutdown() {
    stopped = true;
    Thread thread = refresher;
    if (thread != null) {
      thread.interrupt();
    }
    lookups.shutdownNow();
  }
}
