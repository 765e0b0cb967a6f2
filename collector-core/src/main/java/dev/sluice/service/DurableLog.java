package dev.sluice.service;

import dev.sluice.component.BatchConsumer;
import dev.sluice.component.DurableStorage;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.wal.LogStatistics;
import dev.sluice.wal.Routing;
import dev.sluice.wal.WalOptions;
import dev.sluice.wal.WriteAheadLog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The write-ahead log of the durable pipelines: opened in the storage extension's directory before
 * the receivers start, replayed beside live traffic, and closed after the exporters have drained.
 *
 * <p>Each exporter with {@code sending_queue.storage} is a consumer of the log of its own, named by
 * its id ({@link DurableLayout}): it is done with a record once it has let go of all of it ({@link
 * DurableRequest}), and a segment goes once every consumer is done with all its records. A replayed
 * record goes back only to the durable exporters that still owe it; exporters without storage get
 * no replayed data.
 *
 * <p>A record's routing names the durable pipelines it went to by their bits in a layout, whose
 * number it carries; {@link LayoutsFile} keeps what each number stands for, so a record reaches the
 * pipelines of those names, and no others, however the configuration changed since ({@link
 * LayoutRoutes}). This run's layout gets a number no record in the log carries (or the number of
 * the same layout), and the file is written before the first record of it.
 *
 * <p>Logged requests reach the pipelines only once they are on disk ({@link DurableEntry}), handed
 * over on threads of the log's own ({@link #handOff}), so a request answered as failed is never
 * delivered.
 */
public final class DurableLog implements AutoCloseable, Routing {
  /** The one consumer of the logs that Sluice wrote before each exporter had its own progress. */
  static final String SHARED_CONSUMER = "pipelines";

  private static final Logger LOGGER = Logger.getLogger("sluice.service.wal");
  private static final long CLOSE_TIMEOUT_MILLIS = 10_000;
  private static final long REPLAY_STOP_MILLIS = 10_000;

  private final Path directory;
  private final DurableLayout layout;
  private final MemoryBudget budget;
  private final long maxSizeBytes;
  private final LayoutRoutes routes;
  private final PipelineFailures failures;
  // By consumer: the bytes of the log's records it is not done with, its durable queue's size.
  private final LongAdder[] owedBytes;
  // Hands logged requests to the pipelines once they are on disk; bounded by the memory budget,
  // which holds every request queued here.
  private final ThreadPoolExecutor handOff;
  // Requests appended and not yet handed to the pipelines (or answered as failed).
  private final AtomicInteger inFlight = new AtomicInteger();
  // Batches of logged requests a full pipeline refused, offered to it again.
  private final ParkedBatches parked;
  private volatile WriteAheadLog log;
  private DurableReplay replay;
  private Thread replayThread;
  private Map<Integer, Map<String, List<String>>> layoutsToWrite;
  private volatile boolean layoutsWritten;
  private volatile boolean freezing;
  private volatile long frozenFromNanos;

  private DurableLog(
      Path directory,
      DurableLayout layout,
      MemoryBudget budget,
      long maxSizeBytes,
      LayoutRoutes routes,
      PipelineFailures failures) {
    this.directory = directory;
    this.layout = layout;
    this.budget = budget;
    this.maxSizeBytes = maxSizeBytes;
    this.routes = routes;
    this.failures = failures;
    this.parked = new ParkedBatches(failures);
    this.owedBytes = new LongAdder[layout.consumers().size()];
    for (int c = 0; c < owedBytes.length; c++) {
      owedBytes[c] = new LongAdder();
    }
    int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
    AtomicInteger named = new AtomicInteger();
    this.handOff =
        new ThreadPoolExecutor(
            threads,
            threads,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            task -> {
              Thread thread = new Thread(task, "sluice-durable-" + named.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    handOff.allowCoreThreadTimeOut(true);
  }

  /**
   * Opens the log and reads back what it holds; appends are taken from now on, and {@link
   * #startReplay} hands what is owed to the pipelines.
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
      PipelineFailures failures,
      Consumer<String> fatal)
      throws IOException {
    Path directory = storage.directory();
    java.nio.file.Files.createDirectories(directory);
    LayoutRoutes routes = new LayoutRoutes(layout, LayoutsFile.read(directory));
    DurableLog durable =
        new DurableLog(directory, layout, budget, storage.maxSizeBytes(), routes, failures);
    durable.replay = new DurableReplay(durable, budget, layout, routes, firstStages, failures);
    WalOptions options =
        new WalOptions(
            directory,
            storage.fsync(),
            storage.maxSizeBytes(),
            storage.segmentSizeBytes(),
            storage.commitInterval().toNanos(),
            WalOptions.MAX_PENDING_DEFAULT,
            layout.consumers(),
            durable);
    WriteAheadLog log =
        WriteAheadLog.open(
            options,
            durable.replay,
            (message, cause) ->
                fatal.accept("the write-ahead log in " + directory + ": " + message));
    durable.log = log;
    durable.chooseLayout(log.layoutsInUse());
    try {
      durable.beforeWrite();
    } catch (IOException e) {
      // A full disk, say: written before the first request is logged, which waits for it.
      LOGGER.warning(
          "Writing "
              + directory.resolve(LayoutsFile.NAME)
              + " failed ("
              + e.getMessage()
              + "); requests are refused until it is written");
    }
    LogStatistics statistics = log.statistics();
    LOGGER.info(
        "Write-ahead log in "
            + directory
            + ": "
            + log.owedAtOpen()
            + " requests to replay, "
            + durable.replay.dropped.get()
            + " dropped (their pipelines or durable exporters are no longer configured), "
            + statistics.corruptRecords()
            + " damaged records skipped, "
            + statistics.tornBytes()
            + " bytes of a torn tail cut off");
    durable.register(metrics);
    return durable;
  }

  /**
   * This run's layout number: that of the same layout if the file has it, else one no record in the
   * log carries. The file to write keeps the layouts records still carry, and this one.
   */
  private void chooseLayout(java.util.Set<Integer> inUse) {
    Map<Integer, Map<String, List<String>>> known = routes.known();
    List<Map.Entry<String, List<String>>> current =
        new ArrayList<>(layout.exportersOfPipeline().entrySet());
    int number = -1;
    for (Map.Entry<Integer, Map<String, List<String>>> entry : known.entrySet()) {
      if (entry.getKey() != WriteAheadLog.FORMER_LAYOUT
          && new ArrayList<>(entry.getValue().entrySet()).equals(current)) {
        number = entry.getKey();
        break;
      }
    }
    for (int candidate = 0; number < 0 && candidate <= WriteAheadLog.MAX_LAYOUT; candidate++) {
      if (!inUse.contains(candidate) && !known.containsKey(candidate)) {
        number = candidate;
      }
    }
    if (number < 0) {
      throw new IllegalStateException("every layout number is in use in " + directory);
    }
    Map<Integer, Map<String, List<String>>> write = new LinkedHashMap<>();
    known.forEach(
        (kept, pipelines) -> {
          if (inUse.contains(kept)) {
            write.put(kept, pipelines);
          }
        });
    write.put(number, layout.exportersOfPipeline());
    layoutsToWrite = write;
    layoutsWritten =
        java.nio.file.Files.exists(directory.resolve(LayoutsFile.NAME))
            && !java.nio.file.Files.exists(directory.resolve(LayoutsFile.FORMER_NAME))
            && known.keySet().equals(write.keySet());
    routes.current(number);
  }

  /** Writes the layouts file before the first record of this run's layout: on the writer thread. */
  @Override
  public void beforeWrite() throws IOException {
    if (!layoutsWritten) {
      LayoutsFile.write(directory, layoutsToWrite);
      layoutsWritten = true;
    }
  }

  @Override
  public int consumersOf(int layout, int routing, int signal) {
    return routes.consumersOf(layout, routing, signal);
  }

  /** This run's layout number, which its records carry. */
  int currentLayout() {
    return routes.currentLayout();
  }

  /**
   * Hands what the log owes to the pipelines, on a thread of its own, beside live traffic; what it
   * has not handed when the collector stops stays owed for the next start.
   */
  public void startReplay() {
    Thread thread =
        new Thread(
            () -> {
              try {
                log.replay();
                LOGGER.info(
                    "Replayed the write-ahead log: "
                        + log.statistics().recoveredRecords()
                        + " requests replayed, "
                        + replay.dropped.get()
                        + " dropped"
                        + droppedDetail()
                        + ", "
                        + replay.setAside.get()
                        + " set aside (a pipeline failed on them)");
              } catch (InterruptedException e) {
                LOGGER.info(
                    "Replaying the write-ahead log stopped: what was not replayed stays in the log"
                        + " for the next start");
              } catch (IOException | RuntimeException e) {
                LOGGER.log(
                    Level.SEVERE,
                    "Replaying the write-ahead log failed; what was not replayed stays in the log"
                        + " for the next start",
                    e);
              }
            },
            "sluice-wal-replay");
    thread.setDaemon(true);
    replayThread = thread;
    thread.start();
  }

  private String droppedDetail() {
    Map<String, Long> byPipeline = replay.droppedByPipeline();
    return byPipeline.isEmpty() ? "" : " " + byPipeline;
  }

  /** Stops the replay, if it still runs; what it has not handed stays owed. */
  public void stopReplay() throws InterruptedException {
    Thread thread = replayThread;
    if (thread != null) {
      thread.interrupt();
      thread.join(REPLAY_STOP_MILLIS);
    }
  }

  /** Whether the replay has handed on everything the log owed at the start. */
  public boolean replayDone() {
    Thread thread = replayThread;
    return thread != null && !thread.isAlive();
  }

  public WriteAheadLog log() {
    return log;
  }

  /** The log being opened: replayed requests are marked done on it while the replay goes on. */
  void opening(WriteAheadLog opening) {
    log = opening;
  }

  PipelineFailures failures() {
    return failures;
  }

  /** Runs {@code task} on the log's hand-off threads; false once they are stopped. */
  boolean handOff(Runnable task) {
    try {
      handOff.execute(task);
      return true;
    } catch (java.util.concurrent.RejectedExecutionException e) {
      return false;
    }
  }

  /**
   * A full pipeline refused a batch of logged (answered) requests: it is offered again until taken.
   */
  void park(BatchConsumer pipeline, dev.sluice.pdata.Batch batch) {
    parked.park(pipeline, batch);
  }

  /** A request was appended; it is in flight until {@link #landed}. */
  void appended() {
    inFlight.incrementAndGet();
  }

  /** An appended request was handed to the pipelines, or answered without them. */
  void landed() {
    inFlight.decrementAndGet();
  }

  /**
   * Waits until every appended request has been written and handed to the pipelines (or answered
   * otherwise), at most until {@code deadlineNanos}: after the receivers stop, before the
   * processors do.
   */
  public void awaitHandedOff(long deadlineNanos) throws InterruptedException {
    while (inFlight.get() > 0 && deadlineNanos - System.nanoTime() > 0) {
      TimeUnit.MILLISECONDS.sleep(1);
    }
  }

  /** A new request for the pipelines of {@code routing}, to track as the exporters release it. */
  DurableRequest request(int routing, int payloadBytes) {
    return new DurableRequest(
        this,
        budget,
        routes.consumersOf(routes.currentLayout(), routing, 0),
        false,
        WriteAheadLog.recordBytes(payloadBytes));
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
        "Bytes of the write-ahead log's segments on disk.",
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
        "sluice_wal_records_to_replay",
        "Requests some durable exporter was owed when the log was opened at start.",
        log::owedAtOpen);
    metrics.gauge(
        "sluice_wal_records_recovered",
        "Requests replayed from the log since the start.",
        () -> log.statistics().recoveredRecords());
    metrics.gauge(
        "sluice_wal_records_corrupt",
        "Damaged records skipped at start.",
        () -> log.statistics().corruptRecords());
    metrics.gauge(
        "sluice_wal_replay_dropped",
        "Requests dropped at start: owed only to pipelines or durable exporters that no longer"
            + " exist.",
        replay.dropped::get);
    metrics.gauge(
        "sluice_wal_records_set_aside",
        "Replayed requests a pipeline failed on every time they were offered: set aside, done for"
            + " that pipeline's exporters.",
        replay.setAside::get);
    metrics.gauge(
        "sluice_wal_parked_batches",
        "Batches of logged requests a full pipeline refused, waiting to be offered to it again.",
        parked::size);
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

  /**
   * Stops the replay, writes what is pending and persists progress; what the exporters had not
   * finished stays.
   */
  @Override
  public void close() throws InterruptedException {
    stopReplay();
    parked.close();
    log.close(CLOSE_TIMEOUT_MILLIS);
    handOff.shutdown();
  }
}
