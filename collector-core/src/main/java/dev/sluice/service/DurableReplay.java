package dev.sluice.service;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.wal.RecordConsumer;
import dev.sluice.wal.WriteAheadLog;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * Feeds each recovered record to the pipelines it was logged for ({@link LayoutRoutes}) whose
 * durable exporters still owe it, waiting while they are full; at their ends ({@link
 * DurableFanout}) it goes to those exporters only. It runs beside live traffic, on the log's replay
 * thread.
 *
 * <p>A record owed only to pipelines or durable exporters that are gone is dropped, counted by
 * pipeline and logged. A record larger than the memory budget (logged under a larger one) is
 * admitted alone once what is held has drained. A record a pipeline fails on (a processor throws)
 * is offered to that pipeline again twice; if it fails every time it is set aside: counted, logged
 * with its sequence, and done for the exporters of that pipeline, never retried at every start.
 */
final class DurableReplay implements RecordConsumer {
  private static final Logger LOGGER = Logger.getLogger("sluice.service.wal");
  private static final long RETRY_MILLIS = 10;
  private static final long WAIT_LOG_MILLIS = 10_000;
  private static final int DROPS_LOGGED = 10;
  private static final int ATTEMPTS = 3;

  private final DurableLog durable;
  private final MemoryBudget budget;
  private final LayoutRoutes routes;
  private final PipelineFailures failures;
  private final OtlpIndexer indexer = new OtlpIndexer();
  // By current pipeline: its first stage.
  private final BatchConsumer[] stages;
  private final List<String> pipelines;
  // By layout number and bit: the lowest watermark the progress file held for a consumer that the
  // pipeline had then, what tells whether a record no consumer owes now was owed by a gone one.
  private final Map<Integer, long[]> lowestOldWatermarks = new java.util.HashMap<>();
  private final Map<String, Long> droppedByPipeline = new TreeMap<>();
  final AtomicLong dropped = new AtomicLong();
  final AtomicLong setAside = new AtomicLong();

  DurableReplay(
      DurableLog durable,
      MemoryBudget budget,
      DurableLayout layout,
      LayoutRoutes routes,
      Map<String, BatchConsumer> firstStages,
      PipelineFailures failures) {
    this.durable = durable;
    this.budget = budget;
    this.routes = routes;
    this.failures = failures;
    this.pipelines = layout.pipelines();
    this.stages = new BatchConsumer[pipelines.size()];
    for (int now = 0; now < stages.length; now++) {
      stages[now] = firstStages.get(pipelines.get(now));
    }
  }

  @Override
  public String predecessorOf(String consumer) {
    return DurableLog.SHARED_CONSUMER;
  }

  @Override
  public void starting(WriteAheadLog opening) {
    durable.opening(opening);
    Map<String, Long> persisted = opening.persistedWatermarks();
    routes
        .known()
        .forEach(
            (number, then) -> {
              long[] lowest = new long[then.size()];
              int bit = 0;
              for (List<String> exporters : then.values()) {
                long least = persisted == null ? 0 : Long.MAX_VALUE;
                if (persisted != null) {
                  for (Map.Entry<String, Long> consumer : persisted.entrySet()) {
                    boolean routed =
                        consumer.getKey().equals(DurableLog.SHARED_CONSUMER)
                            || exporters == null
                            || exporters.contains(consumer.getKey());
                    if (routed) {
                      least = Math.min(least, consumer.getValue());
                    }
                  }
                }
                lowest[bit++] = least;
              }
              lowestOldWatermarks.put(number, lowest);
            });
  }

  @Override
  public void notReplayed(long sequence, int layout, int routing, int signal) {
    long[] lowest = lowestOldWatermarks.get(layout);
    if (lowest == null || !routes.believable(layout, routing, signal)) {
      return; // every durable exporter was taken to owe it, and none does
    }
    int bit = 0;
    for (Map.Entry<String, List<String>> pipeline : routes.pipelinesOf(layout, routing)) {
      int at = bitOf(routing, bit++);
      if (sequence >= lowest[at]) {
        // Some consumer of the run that logged it owed it, and none of this run's can take it.
        String name = pipeline.getKey();
        drop(
            sequence,
            name,
            routes.configured(name)
                ? "the durable exporters of pipeline " + name + " that owed it are gone"
                : "pipeline " + name + " is no longer configured");
        return;
      }
    }
  }

  /** The position of the {@code nth} set bit of {@code routing}. */
  private static int bitOf(int routing, int nth) {
    int left = routing;
    for (int i = 0; i < nth; i++) {
      left &= left - 1;
    }
    return Integer.numberOfTrailingZeros(left);
  }

  @Override
  public void replay(long sequence, int layout, int routing, int signal, int owed, byte[] payload)
      throws InterruptedException {
    int targets = routes.targets(layout, routing, signal, owed);
    Signal[] signals = Signal.values();
    if (targets == 0 || signal >= signals.length) {
      List<Map.Entry<String, List<String>>> then = routes.pipelinesOf(layout, routing);
      drop(
          sequence,
          then.isEmpty() ? "(unknown)" : then.get(0).getKey(),
          "its pipelines are no longer configured");
      return;
    }
    OtlpIndex request;
    try {
      request = indexer.index(signals[signal], payload);
    } catch (MalformedOtlpException e) {
      drop(sequence, "(malformed)", e.getMessage());
      return;
    }
    DurableRequest tracked =
        new DurableRequest(durable, budget, owed, true, WriteAheadLog.recordBytes(payload.length));
    tracked.logged(sequence);
    admit(request, tracked);
    boolean handed = false;
    try {
      long waitingSince = System.nanoTime();
      for (int left = targets; left != 0; left &= left - 1) {
        BatchConsumer target = stages[Integer.numberOfTrailingZeros(left)];
        if (target == null) {
          continue;
        }
        for (int attempt = 1; ; attempt++) {
          Batch batch = Batch.of(request);
          Admission admission;
          try {
            admission = target.consume(batch);
          } catch (RuntimeException | StackOverflowError e) {
            batch.clear();
            if (attempt < ATTEMPTS) {
              continue;
            }
            setAside(sequence, pipelines.get(Integer.numberOfTrailingZeros(left)), e);
            break;
          }
          if (admission == Admission.FULL) {
            batch.clear();
            waitingSince = waitLogged(waitingSince, "the pipelines to take a replayed request");
            attempt = 0;
            continue;
          }
          if (admission != Admission.ACCEPTED) {
            batch.clear();
            if (admission == Admission.CLOSED) {
              // Stopping: what this pipeline did not take stays owed for the next start.
              request.abandon();
            }
          }
          break;
        }
      }
      handed = true;
    } finally {
      if (!handed) {
        // Interrupted (the collector stops): what was not handed stays owed for the next start.
        request.abandon();
      }
      request.releaseHold();
      tracked.settle(owed, request);
    }
  }

  /** Admits a replayed request, waiting for room; one larger than the budget waits to go alone. */
  private void admit(OtlpIndex request, DurableRequest tracked) throws InterruptedException {
    long waitingSince = System.nanoTime();
    if (budget.exceedsBound(request)) {
      LOGGER.warning(
          "A replayed request of "
              + request.retainedBytes()
              + " bytes is larger than the pipelines' memory bound: it is admitted alone once"
              + " what they hold has drained, and other requests are refused until then");
      try {
        while (!budget.tryAdmitAlone(request, tracked)) {
          waitingSince = waitLogged(waitingSince, "the pipelines to drain");
        }
      } finally {
        budget.stopClearing();
      }
      return;
    }
    while (!budget.tryAdmit(request, tracked)) {
      waitingSince = waitLogged(waitingSince, "room in the memory budget");
    }
  }

  private void setAside(long sequence, String pipeline, Throwable cause) {
    setAside.incrementAndGet();
    failures.failed(
        "pipeline "
            + pipeline
            + " failed "
            + ATTEMPTS
            + " times on replayed request "
            + sequence
            + "; it is set aside (done for that pipeline's exporters)",
        cause);
  }

  private void drop(long sequence, String pipeline, String why) {
    long count = dropped.incrementAndGet();
    synchronized (droppedByPipeline) {
      droppedByPipeline.merge(pipeline, 1L, Long::sum);
    }
    if (count <= DROPS_LOGGED) {
      LOGGER.warning("Dropping logged request " + sequence + ": " + why);
    } else if (count == DROPS_LOGGED + 1) {
      LOGGER.warning("Dropping more logged requests; the counts by pipeline follow");
    }
  }

  /** The requests dropped so far, by the pipeline they were logged for. */
  Map<String, Long> droppedByPipeline() {
    synchronized (droppedByPipeline) {
      return Map.copyOf(droppedByPipeline);
    }
  }

  private static long waitLogged(long since, String what) throws InterruptedException {
    TimeUnit.MILLISECONDS.sleep(RETRY_MILLIS);
    if (System.nanoTime() - since > TimeUnit.MILLISECONDS.toNanos(WAIT_LOG_MILLIS)) {
      LOGGER.info("Replaying the write-ahead log: waiting for " + what);
      return System.nanoTime();
    }
    return since;
  }
}
