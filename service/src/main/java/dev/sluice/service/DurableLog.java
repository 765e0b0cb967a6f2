package dev.sluice.service;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.DurableStorage;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.OtlpIndex;
import dev.sluice.pdata.otlp.OtlpIndexer;
import dev.sluice.pdata.otlp.Signal;
import dev.sluice.wal.LogStatistics;
import dev.sluice.wal.WalOptions;
import dev.sluice.wal.WriteAheadLog;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The write-ahead log of the durable pipelines: opened in the storage extension's directory before
 * the receivers start, with what the last run left replayed into the pipelines in its original
 * order, and closed after the exporters have drained.
 *
 * <p>A record's routing says which durable pipelines it went to, by their position in the list the
 * run that wrote it had; that list is kept beside the log ({@value #PIPELINES_FILE}), so that a
 * record still reaches the pipeline of that name when the configuration changed between runs. A
 * record for a pipeline that no longer exists is dropped, counted and logged.
 */
public final class DurableLog implements AutoCloseable {
  static final String PIPELINES_FILE = "pipelines";
  private static final Logger LOGGER = Logger.getLogger("sluice.service.wal");
  private static final long REPLAY_RETRY_MILLIS = 10;
  private static final long REPLAY_WAIT_LOG_MILLIS = 10_000;
  private static final long CLOSE_TIMEOUT_MILLIS = 10_000;

  private final WriteAheadLog log;
  private final long droppedAtReplay;
  private volatile boolean freezing;
  private volatile long frozenFromNanos;

  private DurableLog(WriteAheadLog log, long droppedAtReplay) {
    this.log = log;
    this.droppedAtReplay = droppedAtReplay;
  }

  /**
   * Opens the log and replays it.
   *
   * @param pipelines the durable pipelines by name, in routing-bit order
   * @param fatal told when the log stops because data it held may be gone
   */
  public static DurableLog open(
      DurableStorage storage,
      List<String> pipelines,
      Map<String, BatchConsumer> firstStages,
      MemoryBudget budget,
      MetricRegistry metrics,
      Consumer<String> fatal)
      throws IOException, InterruptedException {
    Path directory = storage.directory();
    Files.createDirectories(directory);
    List<String> previous = readPipelines(directory.resolve(PIPELINES_FILE));
    WalOptions options =
        new WalOptions(
            directory,
            storage.fsync(),
            storage.maxSizeBytes(),
            storage.segmentSizeBytes(),
            storage.commitInterval().toNanos(),
            WalOptions.MAX_PENDING_DEFAULT,
            List.of("pipelines"),
            routing -> routing == 0 ? 0 : 1);
    Replay replay = new Replay(previous == null ? pipelines : previous, firstStages, budget);
    WriteAheadLog log =
        WriteAheadLog.open(
            options,
            replay,
            (message, cause) ->
                fatal.accept("the write-ahead log in " + directory + ": " + message));
    writePipelines(directory, pipelines);
    LogStatistics statistics = log.statistics();
    LOGGER.info(
        "Write-ahead log in "
            + directory
            + ": "
            + statistics.recoveredRecords()
            + " requests replayed, "
            + statistics.corruptRecords()
            + " damaged records skipped, "
            + statistics.tornBytes()
            + " bytes of a torn tail cut off");
    DurableLog durable = new DurableLog(log, replay.dropped);
    replay.durable = durable;
    durable.register(metrics);
    return durable;
  }

  public WriteAheadLog log() {
    return log;
  }

  /**
   * A request is released: the log may forget it. Ignored from the shutdown deadline on ({@link
   * #freezeAt}), when what the exporters still hold is dropped from memory only, to be replayed at
   * the next start.
   */
  void done(long sequence) {
    if (!freezing || System.nanoTime() - frozenFromNanos < 0) {
      log.done(0, sequence);
    }
  }

  /**
   * From {@code deadlineNanos} on, released requests stay owed: the exporters' queues are dropped
   * at their shutdown deadline, and what they held must come back at the next start.
   */
  public void freezeAt(long deadlineNanos) {
    frozenFromNanos = deadlineNanos;
    freezing = true;
  }

  /** Bounds of the force latency histogram, in seconds: 100 us to 1 s. */
  private static final double[] FORCE_SECONDS_BOUNDS = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1
  };

  private static final double NANOS_PER_SECOND = 1e9;

  private void register(MetricRegistry metrics) {
    MetricRegistry.Histogram forces =
        metrics.histogram(
            "sluice_wal_fsync_duration_seconds",
            "How long each force of the write-ahead log to disk took.",
            FORCE_SECONDS_BOUNDS);
    log.onForce(nanos -> forces.record(nanos / NANOS_PER_SECOND));
    metrics.gauge(
        "sluice_wal_records_owed",
        "Requests in the write-ahead log not yet done (delivered or dropped for good).",
        log::owedRecords);
    metrics.gauge(
        "sluice_wal_size_bytes",
        "Bytes of the write-ahead log on disk.",
        () -> log.statistics().sizeBytes());
    metrics.gauge(
        "sluice_wal_segments",
        "Segment files of the write-ahead log.",
        () -> log.statistics().segments());
    metrics.gauge(
        "sluice_wal_pending_appends",
        "Requests accepted, not yet written to the log.",
        () -> log.statistics().pendingAppends());
    metrics.gauge(
        "sluice_wal_records_recovered",
        "Requests replayed from the log at start.",
        () -> log.statistics().recoveredRecords());
    metrics.gauge(
        "sluice_wal_records_corrupt",
        "Damaged records skipped at start.",
        () -> log.statistics().corruptRecords());
    metrics.gauge(
        "sluice_wal_replay_dropped",
        "Requests replayed at start for pipelines that no longer exist.",
        () -> droppedAtReplay);
    metrics.gauge(
        "sluice_wal_groups", "Groups of appends written.", () -> log.statistics().groups());
    metrics.gauge(
        "sluice_wal_grouped_records",
        "Appends written in those groups.",
        () -> log.statistics().groupedRecords());
    metrics.gauge(
        "sluice_wal_fsyncs", "Forces of the log to disk.", () -> log.statistics().forces());
    metrics.gauge(
        "sluice_wal_fsync_nanos",
        "Time spent forcing the log to disk.",
        () -> log.statistics().forceNanos());
    metrics.gauge(
        "sluice_wal_fsync_max_nanos",
        "The longest force of the log to disk.",
        () -> log.statistics().maxForceNanos());
    metrics.gauge(
        "sluice_wal_segments_reused",
        "Segments started in the file of a done segment instead of a new file.",
        () -> log.statistics().reusedSegments());
    metrics.gauge(
        "sluice_wal_failed_writes",
        "Groups whose write failed (answered retryable).",
        () -> log.statistics().failedWrites());
  }

  /** Writes what is pending and persists progress; what the exporters had not finished stays. */
  @Override
  public void close() throws InterruptedException {
    log.close(CLOSE_TIMEOUT_MILLIS);
  }

  /** Feeds each recovered record to the pipelines it went to, waiting while they are full. */
  private static final class Replay implements dev.sluice.wal.RecordConsumer {
    private final List<String> names;
    private final Map<String, BatchConsumer> firstStages;
    private final MemoryBudget budget;
    private final OtlpIndexer indexer = new OtlpIndexer();
    volatile WriteAheadLog log;
    long dropped;

    Replay(List<String> names, Map<String, BatchConsumer> firstStages, MemoryBudget budget) {
      this.names = names;
      this.firstStages = firstStages;
      this.budget = budget;
    }

    @Override
    public void replay(long sequence, int routing, int signal, int owed, byte[] payload)
        throws InterruptedException {
      List<BatchConsumer> targets = new ArrayList<>();
      for (int bit = 0; bit < names.size(); bit++) {
        if ((routing & (1 << bit)) != 0) {
          BatchConsumer stage = firstStages.get(names.get(bit));
          if (stage != null) {
            targets.add(stage);
          }
        }
      }
      Signal[] signals = Signal.values();
      if (targets.isEmpty() || signal >= signals.length) {
        dropped++;
        LOGGER.warning(
            "Dropping replayed request " + sequence + ": its pipelines are no longer configured");
        return;
      }
      OtlpIndex request;
      try {
        request = indexer.index(signals[signal], payload);
      } catch (MalformedOtlpException e) {
        dropped++;
        LOGGER.warning("Dropping replayed request " + sequence + ": " + e.getMessage());
        return;
      }
      ReplayedRelease release = new ReplayedRelease(this, sequence);
      long waitingSince = System.nanoTime();
      while (!budget.tryAdmit(request, release)) {
        waitingSince = waitLogged(waitingSince, "room in the memory budget");
      }
      try {
        for (BatchConsumer target : targets) {
          Batch batch = Batch.of(request);
          Admission admission;
          while ((admission = target.consume(batch)) == Admission.FULL) {
            waitingSince = waitLogged(waitingSince, "the pipelines to take a replayed request");
          }
          if (admission != Admission.ACCEPTED) {
            batch.clear();
          }
        }
      } finally {
        request.releaseHold();
      }
    }

    private static long waitLogged(long since, String what) throws InterruptedException {
      TimeUnit.MILLISECONDS.sleep(REPLAY_RETRY_MILLIS);
      if (System.nanoTime() - since > TimeUnit.MILLISECONDS.toNanos(REPLAY_WAIT_LOG_MILLIS)) {
        LOGGER.info("Replaying the write-ahead log: waiting for " + what);
        return System.nanoTime();
      }
      return since;
    }

    @Override
    public void starting(WriteAheadLog opening) {
      log = opening;
    }

    volatile DurableLog durable;

    void done(long sequence) {
      DurableLog current = durable;
      if (current != null) {
        current.done(sequence);
      } else {
        log.done(0, sequence);
      }
    }
  }

  /** Tells the log a replayed request is done once its last slice is released. */
  private static final class ReplayedRelease implements OtlpIndex.Releaser {
    private final Replay replay;
    private final long sequence;

    ReplayedRelease(Replay replay, long sequence) {
      this.replay = replay;
      this.sequence = sequence;
    }

    @Override
    public void released(OtlpIndex request) {
      replay.budget.released(request);
      if (!request.abandoned()) {
        replay.done(sequence);
      }
    }

    @Override
    public void editBytesChanged(OtlpIndex request, long deltaBytes) {
      replay.budget.editBytesChanged(request, deltaBytes);
    }
  }

  private static List<String> readPipelines(Path file) throws IOException {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private static void writePipelines(Path directory, List<String> pipelines) throws IOException {
    Path temporary = directory.resolve(PIPELINES_FILE + ".tmp");
    Files.write(temporary, String.join("\n", pipelines).getBytes(StandardCharsets.UTF_8));
    try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
      channel.force(true);
    }
    Files.move(
        temporary,
        directory.resolve(PIPELINES_FILE),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }
}
