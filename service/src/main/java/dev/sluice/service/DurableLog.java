package dev.sluice.service;

import dev.sluice.component.BatchConsumer;
import dev.sluice.component.DurableStorage;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.wal.LogStatistics;
import dev.sluice.wal.WalOptions;
import dev.sluice.wal.WriteAheadLog;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.logging.Logger;

/**
 * The write-ahead log of the durable pipelines: opened in the storage extension's directory before
 * the receivers start, with what the last run left replayed into the pipelines in its original
 * order, and closed after the exporters have drained.
 *
 * <p>Each exporter with {@code sending_queue.storage} is a consumer of the log of its own, named by
 * its id ({@link DurableLayout}): it is done with a record once it has let go of all of it ({@link
 * DurableRequest}), and a segment goes once every consumer is done with all its records. At start a
 * record goes back only to the durable exporters that still owe it; exporters without storage get
 * no replayed data.
 *
 * <p>A record's routing says which durable pipelines it went to, by their position in the list the
 * run that wrote it had; that list is kept beside the log ({@value #PIPELINES_FILE}), each pipeline
 * with its durable exporters, so that a record still reaches the pipeline of that name when the
 * configuration changed between runs. A record owed only to pipelines or exporters that no longer
 * exist is dropped, counted and logged. When that list is missing or damaged ({@link
 * PipelinesFile}) every record goes to every durable pipeline of its signal.
 */
public final class DurableLog implements AutoCloseable {
  static final String PIPELINES_FILE = PipelinesFile.NAME;

  /** The one consumer of the logs that Sluice wrote before each exporter had its own progress. */
  static final String SHARED_CONSUMER = "pipelines";

  private static final Logger LOGGER = Logger.getLogger("sluice.service.wal");
  private static final long CLOSE_TIMEOUT_MILLIS = 10_000;

  private final DurableLayout layout;
  private final MemoryBudget budget;
  private final long maxSizeBytes;
  // By consumer: the bytes of the log's records it is not done with, its durable queue's size.
  private final LongAdder[] owedBytes;
  private volatile WriteAheadLog log;
  // Each routing bit's consumers: those of the previous run's pipelines while replaying, then the
  // current ones.
  private volatile int[] consumersOfBits;
  private long droppedAtReplay;
  private volatile boolean freezing;
  private volatile long frozenFromNanos;

  private DurableLog(DurableLayout layout, MemoryBudget budget, long maxSizeBytes) {
    this.layout = layout;
    this.budget = budget;
    this.maxSizeBytes = maxSizeBytes;
    this.owedBytes = new LongAdder[layout.consumers().size()];
    for (int c = 0; c < owedBytes.length; c++) {
      owedBytes[c] = new LongAdder();
    }
  }

  /**
   * Opens the log and replays it.
   *
   * @param layout the durable pipelines and their durable exporters
   * @param firstStages the durable pipelines' first stages by name
   * @param fatal told when the log stops because data it held may be gone
   */
  public static DurableLog open(
      DurableStorage storage,
      DurableLayout layout,
      Map<String, BatchConsumer> firstStages,
      MemoryBudget budget,
      MetricRegistry metrics,
      Consumer<String> fatal)
      throws IOException, InterruptedException {
    Path directory = storage.directory();
    Files.createDirectories(directory);
    // Null when unknown (missing or damaged): every record then goes to every durable pipeline of
    // its signal.
    Map<String, List<String>> previous = PipelinesFile.read(directory.resolve(PIPELINES_FILE));
    DurableLog durable = new DurableLog(layout, budget, storage.maxSizeBytes());
    DurableReplay replay = new DurableReplay(durable, budget, layout, previous, firstStages);
    durable.consumersOfBits = replay.consumersOfOldBits();
    WalOptions options =
        new WalOptions(
            directory,
            storage.fsync(),
            storage.maxSizeBytes(),
            storage.segmentSizeBytes(),
            storage.commitInterval().toNanos(),
            WalOptions.MAX_PENDING_DEFAULT,
            layout.consumers(),
            durable::consumersOfRouting);
    WriteAheadLog log =
        WriteAheadLog.open(
            options,
            replay,
            (message, cause) ->
                fatal.accept("the write-ahead log in " + directory + ": " + message));
    durable.log = log;
    durable.consumersOfBits = layout.consumersOfBits();
    writePipelines(directory, layout.exportersOfPipeline());
    durable.droppedAtReplay = replay.dropped;
    LogStatistics statistics = log.statistics();
    LOGGER.info(
        "Write-ahead log in "
            + directory
            + ": "
            + statistics.recoveredRecords()
            + " requests replayed, "
            + replay.dropped
            + " dropped (their pipelines or durable exporters are no longer configured), "
            + statistics.corruptRecords()
            + " damaged records skipped, "
            + statistics.tornBytes()
            + " bytes of a torn tail cut off");
    durable.register(metrics);
    return durable;
  }

  public WriteAheadLog log() {
    return log;
  }

  /** The log being opened: replayed requests are marked done on it while the replay goes on. */
  void opening(WriteAheadLog opening) {
    log = opening;
  }

  /** The consumers (a bit per index) of the durable pipelines of {@code routing}. */
  int consumersOfRouting(int routing) {
    int[] table = consumersOfBits;
    int consumers = 0;
    for (int left = routing; left != 0; left &= left - 1) {
      int bit = Integer.numberOfTrailingZeros(left);
      if (bit < table.length) {
        consumers |= table[bit];
      }
    }
    return consumers;
  }

  /** A new request for the pipelines of {@code routing}, to track as the exporters release it. */
  DurableRequest request(int routing, int payloadBytes) {
    return new DurableRequest(
        this, budget, consumersOfRouting(routing), false, WriteAheadLog.recordBytes(payloadBytes));
  }

  /** The consumers of {@code consumers} each owe a record of {@code recordBytes} from now on. */
  void owe(int consumers, long recordBytes) {
    LongAdder[] owed = owedBytes;
    for (int left = consumers; left != 0; left &= left - 1) {
      int consumer = Integer.numberOfTrailingZeros(left);
      if (consumer < owed.length) {
        owed[consumer].add(recordBytes);
      }
    }
  }

  /**
   * Consumer {@code consumer} is done with a request: once all are, the log may forget it. Ignored
   * from the shutdown deadline on ({@link #freezeAt}), when what the exporters still hold is
   * dropped from memory only, to be replayed at the next start.
   */
  void done(int consumer, long sequence, long recordBytes) {
    if (!freezing || System.nanoTime() - frozenFromNanos < 0) {
      log.done(consumer, sequence);
      if (consumer < owedBytes.length) {
        owedBytes[consumer].add(-recordBytes);
      }
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

  /** Bounds of the log's latency histograms, in seconds: 100 us to 1 s. */
  private static final double[] LATENCY_SECONDS_BOUNDS = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1
  };

  private static final double NANOS_PER_SECOND = 1e9;

  /** A histogram in seconds of the log's latencies, fed in nanoseconds. */
  private static LongConsumer seconds(MetricRegistry metrics, String name, String help) {
    MetricRegistry.Histogram histogram = metrics.histogram(name, help, LATENCY_SECONDS_BOUNDS);
    return nanos -> histogram.record(nanos / NANOS_PER_SECOND);
  }

  private void register(MetricRegistry metrics) {
    log.onForce(
        seconds(
            metrics,
            "sluice_wal_fsync_duration_seconds",
            "How long each force of the write-ahead log to disk took."));
    log.onWrite(
        seconds(
            metrics,
            "sluice_wal_write_duration_seconds",
            "How long each group's write to the write-ahead log took before its force: the copy"
                + " into the writer's buffer, the writes, and a segment roll when there is one."));
    log.onCommit(
        seconds(
            metrics,
            "sluice_wal_commit_duration_seconds",
            "How long each request waited from its append to the write-ahead log until the log had"
                + " it on disk: what the log adds before the request is answered."));
    metrics.gauge(
        "sluice_wal_records_owed",
        "Requests in the write-ahead log some durable exporter is not done with (delivered or"
            + " dropped for good).",
        log::owedRecords);
    // A durable exporter's queue is the log, and what bounds it is max_size_mib: appends are
    // refused once the log's files would pass it. So its size and capacity are in the log's unit,
    // bytes, as the Go collector's persistent queue reports both in its sizer's unit. The
    // in-memory queue in front of the sending threads has its own figures (SendingChain).
    List<String> consumers = layout.consumers();
    for (int c = 0; c < consumers.size(); c++) {
      int consumer = c;
      String id = consumers.get(c);
      metrics.gauge(
          "otelcol_exporter_queue_size",
          "Current size of the retry queue (in bytes)",
          () -> Math.max(0, owedBytes[consumer].sum()),
          "exporter",
          id);
      metrics.gauge(
          "otelcol_exporter_queue_capacity",
          "Fixed capacity of the retry queue (in bytes)",
          () -> maxSizeBytes,
          "exporter",
          id);
      metrics.gauge(
          "sluice_wal_exporter_records_owed",
          "Requests in the write-ahead log this durable exporter is not done with, those it"
              + " finished out of order included.",
          () -> log.owedRecords(consumer),
          "exporter",
          id);
    }
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
        "Requests dropped at start: owed only to pipelines or durable exporters that no longer"
            + " exist.",
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

  private static void writePipelines(Path directory, Map<String, List<String>> pipelines)
      throws IOException {
    Path temporary = directory.resolve(PIPELINES_FILE + ".tmp");
    Files.write(temporary, PipelinesFile.format(pipelines));
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
