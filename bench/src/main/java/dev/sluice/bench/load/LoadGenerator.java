package dev.sluice.bench.load;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Sends a {@link Workload}'s pre-encoded requests through a {@link Transport} and measures: a
 * warm-up, then a measured window, both bounded in time, and the whole run bounded in requests.
 *
 * <ul>
 *   <li>{@link Mode#CLOSED}: {@code concurrency} requests in flight; each answer sends the next.
 *       Latency is from send to answer.
 *   <li>{@link Mode#FIXED}: requests at fixed times, {@code itemsPerRequest / rate} apart (open
 *       loop), at most {@code maxInFlight} outstanding. Latency is measured from the time a request
 *       was scheduled, not from when it could be sent, so a stall shows in the percentiles instead
 *       of being hidden (coordinated omission).
 *   <li>{@link Mode#IDLE}: sends nothing; measures the watched processes at rest.
 * </ul>
 *
 * <p>Every second it prints a line of progress. During the window it samples, from {@code /proc},
 * its own CPU time and that of the watched processes (the collector, the sink); nothing is asked of
 * the collector while the window runs.
 */
public final class LoadGenerator {
  /** How requests are paced. */
  public enum Mode {
    CLOSED,
    FIXED,
    IDLE
  }

  /**
   * @param concurrency requests in flight, closed loop
   * @param itemsPerSecond the rate, fixed mode
   * @param maxInFlight the bound on outstanding requests, fixed mode
   * @param maxRequests the bound on requests sent in the whole run
   * @param errorPauseMillis closed loop: how long a connection waits after an error before sending
   *     again (a refusing collector would otherwise be hammered)
   */
  public record Settings(
      Mode mode,
      int concurrency,
      double itemsPerSecond,
      int maxInFlight,
      Duration warmup,
      Duration duration,
      long maxRequests,
      long errorPauseMillis) {
    public Settings {
      if (duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException("the duration must be positive");
      }
      if (duration.compareTo(Duration.ofHours(4)) > 0
          || warmup.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("runs are bounded: at most 1 h warm-up and 4 h");
      }
      if (maxRequests <= 0) {
        throw new IllegalArgumentException("max requests must be positive");
      }
      if (mode == Mode.CLOSED && concurrency <= 0) {
        throw new IllegalArgumentException("concurrency must be positive");
      }
      if (mode == Mode.FIXED && !(itemsPerSecond > 0)) {
        throw new IllegalArgumentException("fixed mode needs a positive rate");
      }
    }
  }

  /** A process whose CPU time and memory the generator samples. */
  public record Watched(String name, long pid) {}

  /** Counters and CPU times at one instant. */
  record Snapshot(
      long nanos,
      long okRequests,
      long okItems,
      long failed,
      long selfCpu,
      long[] watchedCpu,
      ProcStat.MachineCpu machine) {}

  /** What a run measured. */
  public record Outcome(
      Settings settings,
      double windowSeconds,
      long windowRequests,
      long windowItems,
      long windowErrors,
      Histogram latencyMicros,
      double generatorCpuPercent,
      List<WatchedOutcome> watched,
      long totalRequestsSent,
      long totalOkRequests,
      long totalOkItems,
      long totalFailedRequests,
      long totalFailedItems,
      Map<String, Long> errors,
      boolean capped,
      boolean aborted,
      String abortReason,
      double stealPercent) {
    public double itemsPerSecond() {
      return windowSeconds > 0 ? windowItems / windowSeconds : 0;
    }
  }

  /** A watched process over the window. */
  public record WatchedOutcome(String name, long pid, long cpuNanos, double cpuPercent) {}

  private static final long SECOND = 1_000_000_000L;

  private final Transport transport;
  private final Workload workload;
  private final Settings settings;
  private final List<Watched> watched;
  private final PrintStream progress;

  private final AtomicLong issued = new AtomicLong();
  private final LongAdder okRequests = new LongAdder();
  private final LongAdder okItems = new LongAdder();
  private final LongAdder failedRequests = new LongAdder();
  private final Map<String, LongAdder> errorCodes = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Recorder latency = new Recorder(3_600_000_000L, 3);
  private final ScheduledExecutorService pauses =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread thread = new Thread(r, "generator-pause");
            thread.setDaemon(true);
            return thread;
          });
  private volatile boolean stopping;
  private volatile boolean capped;

  public LoadGenerator(
      Transport transport,
      Workload workload,
      Settings settings,
      List<Watched> watched,
      PrintStream progress) {
    this.transport = transport;
    this.workload = workload;
    this.settings = settings;
    this.watched = List.copyOf(watched);
    this.progress = progress;
  }

  /** Runs warm-up and window, stops sending and waits (bounded) for the answers in flight. */
  public Outcome run() throws InterruptedException {
    long selfPid = ProcessHandle.current().pid();
    long warmupSeconds = settings.warmup().toSeconds();
    long windowEndTick = warmupSeconds + settings.duration().toSeconds();
    long start = System.nanoTime();
    Thread scheduler = null;
    switch (settings.mode()) {
      case CLOSED -> {
        for (int i = 0; i < settings.concurrency(); i++) {
          sendNext();
        }
      }
      case FIXED -> {
        scheduler = new Thread(() -> runFixed(start), "generator-schedule");
        scheduler.setDaemon(true);
        scheduler.start();
      }
      case IDLE -> {}
    }

    Histogram window = new Histogram(3_600_000_000L, 3);
    Histogram interval = null;
    Snapshot begin = warmupSeconds == 0 ? snapshot(selfPid) : null;
    Snapshot end = null;
    Snapshot previous = snapshot(selfPid);
    String abortReason = null;
    for (long tick = 1; ; tick++) {
      long due = start + tick * SECOND;
      long wait;
      while ((wait = due - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      interval = latency.getIntervalHistogram(interval);
      boolean measuring = begin != null;
      if (measuring) {
        window.add(interval);
      }
      Snapshot now = snapshot(selfPid);
      printProgress(tick, measuring ? "measure" : "warm-up", previous, now, interval);
      previous = now;
      for (int i = 0; i < watched.size(); i++) {
        if (now.watchedCpu()[i] < 0) {
          abortReason = watched.get(i).name() + " (pid " + watched.get(i).pid() + ") is gone";
        }
      }
      if (abortReason != null) {
        break;
      }
      if (begin == null && tick >= warmupSeconds) {
        if (capped) {
          abortReason = "the request cap was reached during the warm-up";
          break;
        }
        begin = now;
      } else if (begin != null && (tick >= windowEndTick || capped)) {
        end = now;
        break;
      }
    }
    stopping = true;
    if (scheduler != null) {
      scheduler.interrupt();
      scheduler.join(5_000);
    }
    long waitUntil = System.nanoTime() + 30 * SECOND;
    while (inFlight.get() > 0 && System.nanoTime() < waitUntil) {
      Thread.sleep(10);
    }
    pauses.shutdownNow();
    if (begin == null || end == null) {
      Snapshot now = snapshot(selfPid);
      begin = begin == null ? now : begin;
      end = now;
    }
    return outcome(begin, end, window, abortReason);
  }

  private Outcome outcome(Snapshot begin, Snapshot end, Histogram window, String abortReason) {
    double seconds = (end.nanos() - begin.nanos()) / 1e9;
    List<WatchedOutcome> watchedOutcomes = new ArrayList<>();
    for (int i = 0; i < watched.size(); i++) {
      long cpu = end.watchedCpu()[i] - begin.watchedCpu()[i];
      watchedOutcomes.add(
          new WatchedOutcome(
              watched.get(i).name(),
              watched.get(i).pid(),
              cpu,
              seconds > 0 ? cpu / (seconds * 1e9) * 100 : 0));
    }
    Map<String, Long> errors = new TreeMap<>();
    errorCodes.forEach((code, count) -> errors.put(code, count.sum()));
    long failed = failedRequests.sum();
    return new Outcome(
        settings,
        seconds,
        end.okRequests() - begin.okRequests(),
        end.okItems() - begin.okItems(),
        end.failed() - begin.failed(),
        window,
        seconds > 0 ? (end.selfCpu() - begin.selfCpu()) / (seconds * 1e9) * 100 : 0,
        watchedOutcomes,
        issued.get() > settings.maxRequests() ? settings.maxRequests() : issued.get(),
        okRequests.sum(),
        okItems.sum(),
        failed,
        failed * workload.itemsPerRequest(),
        errors,
        capped,
        abortReason != null,
        abortReason,
        stealPercent(begin, end));
  }

  private static double stealPercent(Snapshot begin, Snapshot end) {
    return begin.machine() == null || end.machine() == null
        ? Double.NaN
        : end.machine().stealPercentSince(begin.machine());
  }

  private Snapshot snapshot(long selfPid) {
    long[] cpu = new long[watched.size()];
    for (int i = 0; i < cpu.length; i++) {
      cpu[i] = ProcStat.cpuNanos(watched.get(i).pid());
    }
    return new Snapshot(
        System.nanoTime(),
        okRequests.sum(),
        okItems.sum(),
        failedRequests.sum(),
        ProcStat.cpuNanos(selfPid),
        cpu,
        ProcStat.machineCpu());
  }

  private void printProgress(
      long tick, String phase, Snapshot previous, Snapshot now, Histogram interval) {
    double seconds = (now.nanos() - previous.nanos()) / 1e9;
    StringBuilder line = new StringBuilder();
    line.append(
        String.format(
            Locale.ROOT,
            "[%4ds %-7s] %,12.0f items/s %,8.0f req/s  in flight %4d  errors %,d",
            tick,
            phase,
            (now.okItems() - previous.okItems()) / seconds,
            (now.okRequests() - previous.okRequests()) / seconds,
            inFlight.get(),
            now.failed()));
    if (interval.getTotalCount() > 0) {
      line.append(
          String.format(
              Locale.ROOT,
              "  p50 %.2f ms  p99 %.2f ms",
              interval.getValueAtPercentile(50) / 1000.0,
              interval.getValueAtPercentile(99) / 1000.0));
    }
    line.append(
        String.format(
            Locale.ROOT,
            "  cpu: generator %.0f%%",
            cpuPercent(previous.selfCpu(), now.selfCpu(), seconds)));
    for (int i = 0; i < watched.size(); i++) {
      line.append(
          String.format(
              Locale.ROOT,
              " %s %.0f%%",
              watched.get(i).name(),
              cpuPercent(previous.watchedCpu()[i], now.watchedCpu()[i], seconds)));
    }
    double steal = stealPercent(previous, now);
    if (!Double.isNaN(steal)) {
      line.append(String.format(Locale.ROOT, "  steal %.0f%%", steal));
    }
    progress.println(line);
  }

  private static double cpuPercent(long before, long after, double seconds) {
    return before < 0 || after < 0 ? Double.NaN : (after - before) / (seconds * 1e9) * 100;
  }

  // Closed loop.

  private void sendNext() {
    if (stopping) {
      return;
    }
    long n = issued.getAndIncrement();
    if (n >= settings.maxRequests()) {
      capped = true;
      return;
    }
    long sent = System.nanoTime();
    send(
        n,
        sent,
        failed -> {
          if (failed) {
            pauses.schedule(this::sendNext, settings.errorPauseMillis(), TimeUnit.MILLISECONDS);
          } else {
            sendNext();
          }
        });
  }

  // Fixed rate.

  private void runFixed(long start) {
    double intervalNanos = workload.itemsPerRequest() / settings.itemsPerSecond() * 1e9;
    for (long n = 0; !stopping; n++) {
      long scheduled = start + (long) (n * intervalNanos);
      long wait;
      while ((wait = scheduled - System.nanoTime()) > 0) {
        LockSupport.parkNanos(wait);
        if (stopping) {
          return;
        }
      }
      while (inFlight.get() >= settings.maxInFlight()) {
        LockSupport.parkNanos(100_000);
        if (stopping) {
          return;
        }
      }
      if (issued.getAndIncrement() >= settings.maxRequests()) {
        capped = true;
        return;
      }
      send(n, scheduled, failed -> {});
    }
  }

  /** Request {@code n}; latency counts from {@code fromNanos}. */
  private void send(long n, long fromNanos, java.util.function.Consumer<Boolean> then) {
    byte[] body = workload.body(n);
    inFlight.incrementAndGet();
    transport.send(
        workload.signal(),
        body,
        error -> {
          if (error == null) {
            latency.recordValue(Math.max(1, (System.nanoTime() - fromNanos) / 1000));
            okItems.add(workload.itemsPerRequest());
            okRequests.increment();
          } else {
            errorCodes.computeIfAbsent(error, k -> new LongAdder()).increment();
            failedRequests.increment();
          }
          inFlight.decrementAndGet();
          then.accept(error != null);
        });
  }
}
