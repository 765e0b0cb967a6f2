package dev.sluice.exporter.file;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.Batch;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Writes each batch as one record of the file (see {@link RecordFile}), on the sending thread that
 * exports it: the batch is encoded outside the lock, then copied into the file's buffer under it.
 * The buffer is flushed every {@code flush_interval} by a task on the service's scheduler, which
 * never waits for the lock (a writer holding it flushes soon enough), and at shutdown.
 *
 * <p>A write the file refuses is answered retryable, counted ({@code
 * sluice_exporter_file_write_failures_total}) and logged at most every {@link
 * #LOG_INTERVAL_MILLIS}.
 */
final class FileExporter implements Exporter {
  static final long LOG_INTERVAL_MILLIS = 10_000;

  private final FileExporterConfig config;
  private final Path path;
  private final Scheduler scheduler;
  private final Clock clock;
  private final Logger logger;
  private final RateLimitedLog failureLog;
  private final long flushIntervalNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final ConcurrentLinkedQueue<RecordEncoder> encoders = new ConcurrentLinkedQueue<>();
  private final MetricRegistry.Counter writtenBytes;
  private final MetricRegistry.Counter writeFailures;
  // Guarded by lock.
  private RecordFile file;
  private volatile boolean stopped;
  private volatile Scheduler.Timer flushTimer;

  FileExporter(ComponentSettings settings, FileExporterConfig config, Clock clock) {
    this.config = config;
    this.path = Path.of(config.path());
    this.scheduler = settings.scheduler();
    this.clock = clock;
    this.logger = settings.logger();
    this.failureLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
    this.flushIntervalNanos = config.effectiveFlushInterval().toNanos();
    String id = settings.id().toString();
    MetricRegistry metrics = settings.metrics();
    writtenBytes =
        metrics.counter(
            "sluice_exporter_file_written_bytes",
            "Bytes of records written to the file, framing included",
            "exporter",
            id);
    writeFailures =
        metrics.counter(
            "sluice_exporter_file_write_failures",
            "Writes the file refused (disk full, file or directory not writable), each answered"
                + " retryable",
            "exporter",
            id);
  }

  /** Opens the file (truncating it unless {@code append} or rotation); a failure stops start. */
  @Override
  public void start() throws IOException {
    lock.lock();
    try {
      // With rotation the file found is continued, as lumberjack does: rotation exists to keep
      // what was written, and the next write rotates a file that is already full.
      file =
          RecordFile.open(
              path, config.append() || config.rotation() != null, config.rotation(), clock, logger);
    } finally {
      lock.unlock();
    }
    flushTimer = scheduler.schedule(this::flushTick, flushIntervalNanos);
  }

  @Override
  public ExportResult export(Batch batch, long deadlineNanos) throws InterruptedException {
    RecordEncoder encoder = encoders.poll();
    if (encoder == null) {
      encoder = new RecordEncoder(config.format(), config.compressed());
    }
    try {
      encoder.encode(batch);
      if (!lock.tryLock(remainingNanos(deadlineNanos), TimeUnit.NANOSECONDS)) {
        return failed("timed out waiting for another write to " + path);
      }
      try {
        if (file == null) {
          return ExportResult.retryable("the file exporter is not running", 0);
        }
        file.write(encoder.framing(), encoder.array(), 0, encoder.length());
      } finally {
        lock.unlock();
      }
      writtenBytes.add(encoder.framing().framedLength(encoder.length()));
      return ExportResult.SUCCESS;
    } catch (IOException e) {
      return failed("cannot write to " + path + ": " + describe(e));
    } finally {
      encoder.release();
      encoders.offer(encoder);
    }
  }

  /** Flushes, then closes the file; what cannot be flushed by {@code deadlineNanos} is lost. */
  @Override
  public void shutdown(long deadlineNanos) throws InterruptedException {
    stopped = true;
    Scheduler.Timer timer = flushTimer;
    if (timer != null) {
      timer.cancel();
    }
    if (!lock.tryLock(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      logger.warning("A write to " + path + " is still in progress at shutdown; not flushed");
      return;
    }
    try {
      if (file == null) {
        return;
      }
      int pending = file.pendingBytes();
      try {
        file.close();
      } catch (IOException e) {
        writeFailures.add(1);
        logger.log(
            Level.SEVERE,
            "Cannot flush " + path + " at shutdown; " + pending + " bytes of records are lost",
            e);
      }
      file = null;
    } finally {
      lock.unlock();
    }
  }

  /** Bytes written so far, framing included. */
  long writtenBytes() {
    return writtenBytes.get();
  }

  /** Writes refused so far. */
  long writeFailures() {
    return writeFailures.get();
  }

  private void flushTick() {
    if (stopped) {
      return;
    }
    if (lock.tryLock()) {
      try {
        if (file != null) {
          file.flush();
        }
      } catch (IOException e) {
        writeFailures.add(1);
        failureLog.log("Cannot flush " + path + " (kept for the next attempt): " + describe(e));
      } finally {
        lock.unlock();
      }
    }
    if (!stopped) {
      flushTimer = scheduler.schedule(this::flushTick, flushIntervalNanos);
    }
  }

  /** Nanoseconds until {@code deadlineNanos}; {@link Long#MAX_VALUE} stands for no deadline. */
  private long remainingNanos(long deadlineNanos) {
    if (deadlineNanos == Long.MAX_VALUE) {
      return Long.MAX_VALUE;
    }
    return Math.max(0, deadlineNanos - scheduler.nanoTime());
  }

  private ExportResult failed(String message) {
    writeFailures.add(1);
    failureLog.log(message);
    return ExportResult.retryable(message, 0);
  }

  /** An I/O failure in words: the JDK's messages for some are only the path. */
  private static String describe(IOException e) {
    String kind = e.getClass().getSimpleName();
    return e.getMessage() == null ? kind : kind + ": " + e.getMessage();
  }
}
