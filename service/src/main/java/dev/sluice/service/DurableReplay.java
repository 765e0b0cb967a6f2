package dev.sluice.service;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.OtlpIndex;
import dev.sluice.pdata.otlp.OtlpIndexer;
import dev.sluice.pdata.otlp.Signal;
import dev.sluice.wal.RecordConsumer;
import dev.sluice.wal.WriteAheadLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Feeds each recovered record to the pipelines it went to whose durable exporters still owe it,
 * waiting while they are full; at their ends ({@link DurableFanout}) it goes to those exporters
 * only. A record owed only to pipelines or durable exporters that are gone is dropped and counted.
 */
final class DurableReplay implements RecordConsumer {
  private static final Logger LOGGER = Logger.getLogger("sluice.service.wal");
  private static final long RETRY_MILLIS = 10;
  private static final long WAIT_LOG_MILLIS = 10_000;
  private static final int DROPS_LOGGED = 10;

  private final DurableLog durable;
  private final MemoryBudget budget;
  private final OtlpIndexer indexer = new OtlpIndexer();
  // By routing bit of the run that wrote the log: the pipeline's name, its durable exporters then
  // (null when that run did not say), its first stage now, and its consumers now.
  private final List<String> oldPipelines;
  private final List<List<String>> oldExporters;
  private final BatchConsumer[] stages;
  private final int[] consumers;
  // By the same bit: the lowest watermark the progress file held for a consumer the pipeline had.
  private long[] lowestOldWatermarks;
  long dropped;

  /**
   * @param previous the durable pipelines of the run that wrote the log, by name in its routing-bit
   *     order, with their durable exporters (null for one that was not recorded)
   */
  DurableReplay(
      DurableLog durable,
      MemoryBudget budget,
      DurableLayout layout,
      Map<String, List<String>> previous,
      Map<String, BatchConsumer> firstStages) {
    this.durable = durable;
    this.budget = budget;
    this.oldPipelines = new ArrayList<>(previous.keySet());
    this.oldExporters = new ArrayList<>(previous.values());
    this.stages = new BatchConsumer[oldPipelines.size()];
    this.consumers = new int[oldPipelines.size()];
    List<String> current = layout.pipelines();
    for (int bit = 0; bit < stages.length; bit++) {
      int now = current.indexOf(oldPipelines.get(bit));
      if (now >= 0) {
        stages[bit] = firstStages.get(oldPipelines.get(bit));
        consumers[bit] = layout.consumersOfRouting(1 << now);
      }
    }
  }

  /** The consumers of each routing bit of the log's records. */
  int[] consumersOfOldBits() {
    return consumers.clone();
  }

  @Override
  public String predecessorOf(String consumer) {
    return DurableLog.SHARED_CONSUMER;
  }

  @Override
  public void starting(WriteAheadLog opening) {
    durable.opening(opening);
    Map<String, Long> persisted = opening.persistedWatermarks();
    lowestOldWatermarks = new long[oldPipelines.size()];
    for (int bit = 0; bit < lowestOldWatermarks.length; bit++) {
      long lowest = persisted == null ? 0 : Long.MAX_VALUE;
      if (persisted != null) {
        for (Map.Entry<String, Long> consumer : persisted.entrySet()) {
          List<String> exporters = oldExporters.get(bit);
          boolean routed =
              consumer.getKey().equals(DurableLog.SHARED_CONSUMER)
                  || exporters == null
                  || exporters.contains(consumer.getKey());
          if (routed) {
            lowest = Math.min(lowest, consumer.getValue());
          }
        }
      }
      lowestOldWatermarks[bit] = lowest;
    }
  }

  @Override
  public void notReplayed(long sequence, int routing, int signal) {
    for (int left = routing; left != 0; left &= left - 1) {
      int bit = Integer.numberOfTrailingZeros(left);
      if (bit < lowestOldWatermarks.length && sequence >= lowestOldWatermarks[bit]) {
        // Some consumer of the last run owed it, and none of this run's can take it.
        drop(sequence, "its pipelines or durable exporters are no longer configured");
        return;
      }
    }
  }

  @Override
  public void replay(long sequence, int routing, int signal, int owed, byte[] payload)
      throws InterruptedException {
    List<BatchConsumer> targets = new ArrayList<>();
    for (int left = routing; left != 0; left &= left - 1) {
      int bit = Integer.numberOfTrailingZeros(left);
      if (bit < stages.length && stages[bit] != null && (consumers[bit] & owed) != 0) {
        targets.add(stages[bit]);
      }
    }
    Signal[] signals = Signal.values();
    if (targets.isEmpty() || signal >= signals.length) {
      drop(sequence, "its pipelines are no longer configured");
      return;
    }
    OtlpIndex request;
    try {
      request = indexer.index(signals[signal], payload);
    } catch (MalformedOtlpException e) {
      drop(sequence, e.getMessage());
      return;
    }
    DurableRequest tracked =
        new DurableRequest(durable, budget, owed, true, WriteAheadLog.recordBytes(payload.length));
    tracked.logged(sequence);
    long waitingSince = System.nanoTime();
    while (!budget.tryAdmit(request, tracked)) {
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
      tracked.settle(owed, request);
    }
  }

  private void drop(long sequence, String why) {
    dropped++;
    if (dropped <= DROPS_LOGGED) {
      LOGGER.warning("Dropping replayed request " + sequence + ": " + why);
    } else if (dropped == DROPS_LOGGED + 1) {
      LOGGER.warning("Dropping more replayed requests; the count follows when the replay ends");
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
