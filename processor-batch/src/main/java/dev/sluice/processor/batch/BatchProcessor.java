package dev.sluice.processor.batch;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.ProcessorTelemetry;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.component.telemetry.SignalNames;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;

/**
 * The {@code batch} processor: gathers requests into batches of {@code send_batch_size} units, cut
 * to at most {@code send_batch_max_size}, and sends what is pending after {@code timeout}.
 *
 * <p>Batches are cut with {@link Batch#moveTo}: slices move, at most one is cut, no item is
 * touched. When the next stage refuses a batch (an exporter queue is full), the batch is kept and
 * offered again before anything newer, so order is kept and nothing is dropped; meanwhile pending
 * data grows until the collector's memory bound refuses new requests at the receivers.
 *
 * <p>The flush timer runs on the service's {@link Scheduler}, whose thread all pipelines share; a
 * flush only offers batches to the next stage, which never waits on the network.
 */
public final class BatchProcessor implements Processor {
  private static final long BLOCKED_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final BatchConfig config;
  private final Signal signal;
  private final BatchConsumer next;
  private final Scheduler scheduler;
  private final ReentrantLock lock = new ReentrantLock();
  private final Batch pending;
  private Batch blocked;
  private Scheduler.Timer timer;
  private boolean stopped;

  private final MetricRegistry.Counter sizeTriggers;
  private final MetricRegistry.Counter timeoutTriggers;
  private final MetricRegistry.Histogram sendSize;
  private final MetricRegistry.Counter dropped;
  private final ProcessorTelemetry telemetry;
  private final RateLimitedLog dropLog;

  public BatchProcessor(
      ComponentSettings settings, BatchConfig config, Signal signal, BatchConsumer next) {
    this.config = config;
    this.signal = signal;
    this.next = next;
    this.scheduler = settings.scheduler();
    this.pending = new Batch(signal);
    String processor = settings.id().toString();
    MetricRegistry metrics = settings.metrics();
    sizeTriggers =
        metrics.counter(
            "otelcol_processor_batch_batch_size_trigger_send",
            "Number of times the batch was sent due to a size trigger",
            "processor",
            processor);
    timeoutTriggers =
        metrics.counter(
            "otelcol_processor_batch_timeout_trigger_send",
            "Number of times the batch was sent due to a timeout trigger",
            "processor",
            processor);
    sendSize =
        metrics.histogram(
            "otelcol_processor_batch_batch_send_size",
            "Number of units in the batch",
            new double[] {
              10, 25, 50, 75, 100, 250, 500, 750, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000,
              9000, 10000, 20000, 30000, 50000, 100000
            },
            "processor",
            processor);
    dropped =
        metrics.counter(
            "otelcol_processor_dropped_" + SignalNames.units(signal),
            "Number of units dropped by the processor",
            "processor",
            processor);
    telemetry = new ProcessorTelemetry(metrics, settings.id(), signal);
    dropLog = new RateLimitedLog(settings.logger(), Level.WARNING, 10_000);
  }

  @Override
  public Admission consume(Batch batch) {
    telemetry.incoming(batch.unitCount());
    lock.lock();
    try {
      if (stopped) {
        return Admission.CLOSED;
      }
      pending.addAll(batch);
      if (config.timeout().isZero()) {
        flushAll();
      } else {
        flushFull();
        if (timer == null && (!pending.isEmpty() || blocked != null)) {
          schedule(config.timeout().toNanos());
        }
      }
      return Admission.ACCEPTED;
    } finally {
      lock.unlock();
    }
  }

  /** Sends batches while at least {@code send_batch_size} units are pending. */
  private void flushFull() {
    while (pending.unitCount() >= config.sendBatchSize()) {
      if (!sendBlocked()) {
        return;
      }
      sizeTriggers.increment();
      send(cut());
    }
  }

  /** Sends everything pending, in batches of at most the cap. */
  private void flushAll() {
    if (!sendBlocked()) {
      return;
    }
    while (!pending.isEmpty() && blocked == null) {
      if (pending.unitCount() == 0) {
        // Only empty resource or scope blocks are left: they carry no data.
        pending.clear();
        return;
      }
      send(cut());
    }
  }

  private Batch cut() {
    Batch out = new Batch(signal);
    long max = config.sendBatchMaxSize() > 0 ? config.sendBatchMaxSize() : pending.unitCount();
    pending.moveTo(out, max);
    return out;
  }

  private void send(Batch batch) {
    long units = batch.unitCount();
    if (next.consume(batch) == Admission.ACCEPTED) {
      sendSize.record(units);
      telemetry.outgoing(units);
    } else {
      blocked = batch;
    }
  }

  /** Offers the refused batch again; true when there is none left. */
  private boolean sendBlocked() {
    if (blocked == null) {
      return true;
    }
    Batch batch = blocked;
    blocked = null;
    send(batch);
    return blocked == null;
  }

  private void schedule(long delayNanos) {
    timer = scheduler.schedule(this::onTimer, delayNanos);
  }

  private void onTimer() {
    lock.lock();
    try {
      timer = null;
      if (stopped) {
        return;
      }
      if (!pending.isEmpty()) {
        timeoutTriggers.increment();
      }
      flushAll();
      if (blocked != null) {
        schedule(BLOCKED_RETRY_NANOS);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Units waiting here, pending or refused downstream. */
  public long heldUnits() {
    lock.lock();
    try {
      return pending.unitCount() + (blocked == null ? 0 : blocked.unitCount());
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void shutdown(long deadlineNanos) throws InterruptedException {
    lock.lock();
    try {
      stopped = true;
      if (timer != null) {
        timer.cancel();
        timer = null;
      }
      flushAll();
      while (blocked != null && deadlineNanos - System.nanoTime() > 0) {
        lock.unlock();
        try {
          TimeUnit.NANOSECONDS.sleep(BLOCKED_RETRY_NANOS);
        } finally {
          lock.lock();
        }
        flushAll();
      }
      long lost = pending.unitCount() + (blocked == null ? 0 : blocked.unitCount());
      if (lost > 0) {
        dropped.add(lost);
        dropLog.log(
            "Dropping " + lost + " " + signal.unitName() + ": the shutdown deadline passed");
      }
      // Dropped only because the collector stops: a durable pipeline delivers them after restart.
      pending.abandonRequests();
      pending.clear();
      if (blocked != null) {
        blocked.abandonRequests();
        blocked.clear();
        blocked = null;
      }
    } finally {
      lock.unlock();
    }
  }
}
