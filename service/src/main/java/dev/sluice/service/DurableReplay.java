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
 *
 * <p>When the pipelines of the run that wrote the log are unknown (their file is missing or
 * damaged, {@link PipelinesFile}), or a record's routing names a pipeline of another signal than
 * its own, its routing cannot be believed: it goes to every durable pipeline of its signal now
 * configured, and every durable exporter is taken to owe it (re-delivery, never loss).
 */
final class DurableReplay implements RecordConsumer {
  private static final Logger LOGGER = Logger.getLogger("sluice.service.wal");
  private static final long RETRY_MILLIS = 10;
  private static final long WAIT_LOG_MILLIS = 10_000;
  private static final int DROPS_LOGGED = 10;

  /** Routing bits a record can have. */
  private static final int ROUTING_BITS = PipelinesFile.MAX_PIPELINES;

  private final DurableLog durable;
  private final MemoryBudget budget;
  private final OtlpIndexer indexer = new OtlpIndexer();
  // Whether the run that wrote the log left its pipelines unknown.
  private final boolean unknownPrevious;
  // By routing bit of the run that wrote the log: the pipeline's name, its durable exporters then
  // (null when that run did not say), and the current pipeline of that name (-1: none).
  private final List<String> oldPipelines;
  private final List<List<String>> oldExporters;
  private final int[] currentOfBit;
  // By current pipeline: its first stage, its consumers, and its signal (its ordinal, -1: none).
  private final BatchConsumer[] stages;
  private final int[] consumers;
  private final int[] signals;
  private final int consumerCount;
  private final int allConsumers;
  // By the same bit: the lowest watermark the progress file held for a consumer the pipeline had.
  private long[] lowestOldWatermarks;
  long dropped;

  /**
   * @param previous the durable pipelines of the run that wrote the log, by name in its routing-bit
   *     order, with their durable exporters (null for one that was not recorded); null when unknown
   */
  DurableReplay(
      DurableLog durable,
      MemoryBudget budget,
      DurableLayout layout,
      Map<String, List<String>> previous,
      Map<String, BatchConsumer> firstStages) {
    this.durable = durable;
    this.budget = budget;
    this.unknownPrevious = previous == null;
    List<String> current = layout.pipelines();
    this.stages = new BatchConsumer[current.size()];
    this.consumers = new int[current.size()];
    this.signals = new int[current.size()];
    for (int now = 0; now < stages.length; now++) {
      stages[now] = firstStages.get(current.get(now));
      consumers[now] = layout.consumersOfRouting(1 << now);
      Signal signal = PipelinesFile.signalOf(current.get(now));
      signals[now] = signal == null ? -1 : signal.ordinal();
    }
    if (unknownPrevious) {
      // Any bit may have meant any pipeline, and any durable exporter may have been in it.
      this.oldPipelines = new ArrayList<>(java.util.Collections.nCopies(ROUTING_BITS, null));
      this.oldExporters = new ArrayList<>(java.util.Collections.nCopies(ROUTING_BITS, null));
    } else {
      this.oldPipelines = new ArrayList<>(previous.keySet());
      this.oldExporters = new ArrayList<>(previous.values());
    }
    this.currentOfBit = new int[oldPipelines.size()];
    for (int bit = 0; bit < currentOfBit.length; bit++) {
      currentOfBit[bit] =
          oldPipelines.get(bit) == null ? -1 : current.indexOf(oldPipelines.get(bit));
    }
    this.consumerCount = layout.consumers().size();
    this.allConsumers = (1 << consumerCount) - 1;
  }

  /** The consumers of each routing bit of the log's records. */
  int[] consumersOfOldBits() {
    int[] table = new int[currentOfBit.length];
    for (int bit = 0; bit < table.length; bit++) {
      int now = currentOfBit[bit];
      // Unknown: every durable exporter may owe it; the replay sends it by its signal.
      table[bit] = unknownPrevious ? allConsumers : now < 0 ? 0 : consumers[now];
    }
    return table;
  }

  /**
   * The current pipelines (a bit per index in the layout) a record of {@code routing} and {@code
   * signal} goes to, those with an exporter of {@code owed} among them: the pipelines its routing
   * names, or every pipeline of its signal when its routing is unknown or names one of another
   * signal.
   */
  int targetPipelines(int routing, int signal, int owed) {
    int targets = 0;
    if (believable(routing, signal)) {
      for (int left = routing; left != 0; left &= left - 1) {
        int bit = Integer.numberOfTrailingZeros(left);
        int now = bit < currentOfBit.length ? currentOfBit[bit] : -1;
        if (now >= 0 && (consumers[now] & owed) != 0) {
          targets |= 1 << now;
        }
      }
      return targets;
    }
    for (int now = 0; now < stages.length; now++) {
      if (signals[now] == signal && (consumers[now] & owed) != 0) {
        targets |= 1 << now;
      }
    }
    return targets;
  }

  /**
   * Whether a record's routing says where it goes: the previous pipelines are known, and none it
   * names is now a pipeline of another signal (a pipeline's name carries its signal, so only a
   * damaged file can say so).
   */
  private boolean believable(int routing, int signal) {
    if (unknownPrevious) {
      return false;
    }
    for (int left = routing; left != 0; left &= left - 1) {
      int bit = Integer.numberOfTrailingZeros(left);
      int now = bit < currentOfBit.length ? currentOfBit[bit] : -1;
      // A name that gives no signal (not one the configuration makes) is taken at its word.
      if (now >= 0 && signals[now] >= 0 && signals[now] != signal) {
        return false;
      }
    }
    return true;
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
    if (!believable(routing, signal)) {
      // The log computed what is owed from routing bits that cannot be believed: every durable
      // exporter whose progress is not past the record owes it.
      owed |= owedByProgress(sequence);
    }
    List<BatchConsumer> targets = new ArrayList<>();
    for (int left = targetPipelines(routing, signal, owed); left != 0; left &= left - 1) {
      BatchConsumer stage = stages[Integer.numberOfTrailingZeros(left)];
      if (stage != null) {
        targets.add(stage);
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

  private int owedByProgress(long sequence) {
    WriteAheadLog opening = durable.log();
    int owed = 0;
    for (int consumer = 0; consumer < consumerCount; consumer++) {
      if (opening.watermark(consumer) <= sequence) {
        owed |= 1 << consumer;
      }
    }
    return owed;
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
