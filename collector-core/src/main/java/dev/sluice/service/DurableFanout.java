package dev.sluice.service;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.Connector;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.service.sender.SendingChain;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The end of a pipeline that logged requests reach: a {@link Fanout} that also keeps each durable
 * exporter's progress. It counts, per request, the slices each exporter takes and lets go of
 * ({@link DurableRequest}), so that each exporter with {@code sending_queue.storage} is a consumer
 * of the log of its own, done with a request when it has let go of all of it, whatever the other
 * exporters do.
 *
 * <p>A request replayed from the log goes only to the durable exporters that still owe it; the
 * others (those without storage among them) get none of it. A batch holding replayed requests for
 * different exporters (the batch processor merged them) is split into one part per set of
 * exporters. Requests that were not replayed go to every exporter, as with {@link Fanout}, and cost
 * a walk over the batch's slices, never over its items.
 *
 * <p>Connectors among the pipeline's exporters (those that pass requests on, as forward and routing
 * do) are offered their part of the batch first, as {@link Fanout} offers them. Slices handed to a
 * connector are not counted here: they are still on their way to durable exporters, which the
 * fan-outs of the pipelines behind the connector count. A replayed request goes to a connector only
 * when a durable exporter behind it still owes the request.
 *
 * <p>All or none, like {@link Fanout}: the batch is refused and stays with the caller when one of
 * the exporters it goes to has no room, or a connector refuses. Never blocks.
 */
public final class DurableFanout implements BatchConsumer, SharedBatch.Owners {
  private final SendingChain[] exporters;
  private final int[] consumerOf;
  private final int allExporters;
  private final int allConsumers;
  private final Connector[] connectors;
  private final int[] consumersBehind;
  private final int allConnectors;

  /**
   * @param exporters the pipeline's exporters
   * @param consumerOf each exporter's consumer index in the log, or -1 for one without storage
   */
  public DurableFanout(List<SendingChain> exporters, int[] consumerOf) {
    this(exporters, consumerOf, List.of(), new int[0]);
  }

  /**
   * @param exporters the pipeline's exporters, connectors left out
   * @param consumerOf each exporter's consumer index in the log, or -1 for one without storage
   * @param connectors the connectors among the pipeline's exporters, which pass requests on
   * @param consumersBehind each connector's consumers (a bit per index): the durable exporters of
   *     the pipelines behind it, which a replayed request must still be owed by to go to it
   */
  public DurableFanout(
      List<SendingChain> exporters,
      int[] consumerOf,
      List<Connector> connectors,
      int[] consumersBehind) {
    if (exporters.size() != consumerOf.length || connectors.size() != consumersBehind.length) {
      throw new IllegalArgumentException(
          "each exporter needs its consumer, each connector its own");
    }
    if (exporters.isEmpty() && connectors.isEmpty()) {
      throw new IllegalArgumentException("a pipeline needs at least one exporter");
    }
    if (exporters.size() >= Integer.SIZE || connectors.size() >= Integer.SIZE) {
      throw new IllegalArgumentException(
          "at most " + (Integer.SIZE - 1) + " exporters in a durable pipeline");
    }
    this.exporters = exporters.toArray(new SendingChain[0]);
    this.consumerOf = consumerOf.clone();
    this.allExporters = (1 << exporters.size()) - 1;
    this.allConsumers = consumersOf(allExporters);
    this.connectors = connectors.toArray(new Connector[0]);
    this.consumersBehind = consumersBehind.clone();
    this.allConnectors = (1 << connectors.size()) - 1;
  }

  @Override
  public Admission consume(Batch batch) {
    if (connectors.length > 0) {
      return consumeWithConnectors(batch);
    }
    boolean room = true;
    for (SendingChain exporter : exporters) {
      room &= exporter.hasCapacity();
    }
    if (room) {
      // The usual batch: every request in it goes to every exporter, counted in one walk.
      int counted = count(batch, 0, batch.sliceCount(), allConsumers, true);
      if (counted == batch.sliceCount()) {
        send(batch, allExporters);
        return Admission.ACCEPTED;
      }
      count(batch, 0, counted, allConsumers, false);
    }
    return consumeReplayed(batch);
  }

  /**
   * A pipeline that ends in connectors as well: each connector is offered its part first (the
   * requests it goes to: all of them, but a replayed request only where a durable exporter behind
   * the connector still owes it), as a copy of its own whose slices stay upstream of every durable
   * exporter until a fan-out behind the connector hands them on. When one refuses, the batch stays
   * with the caller and the exporters get none of it (a connector that took its part gets it again
   * with the retry, as with {@link Fanout}); otherwise the exporters get theirs.
   */
  private Admission consumeWithConnectors(Batch batch) {
    int slices = batch.sliceCount();
    if (slices == 0) {
      batch.clear();
      return Admission.ACCEPTED;
    }
    int exporterUnion = 0;
    int connectorUnion = 0;
    int connectorsOfEvery = allConnectors;
    int firstExporters = -1;
    boolean mixed = false;
    for (int i = 0; i < slices; ) {
      OtlpIndex request = batch.requestOf(i);
      i = runEnd(batch, i, request);
      DurableRequest durable = DurableRequest.of(request);
      int targets = targetsOf(durable);
      int toConnectors = connectorsOf(durable);
      exporterUnion |= targets;
      connectorUnion |= toConnectors;
      connectorsOfEvery &= toConnectors;
      if (firstExporters < 0) {
        firstExporters = targets;
      } else if (targets != firstExporters) {
        mixed = true;
      }
    }
    for (int left = exporterUnion; left != 0; left &= left - 1) {
      if (!exporters[Integer.numberOfTrailingZeros(left)].hasCapacity()) {
        return Admission.FULL;
      }
    }
    if (exporters.length == 0 && connectors.length == 1 && connectorsOfEvery == 1) {
      return connectors[0].consume(batch); // it answers for the batch, which needs no copy
    }
    Admission refused = null;
    for (int left = connectorUnion; left != 0; left &= left - 1) {
      int connector = Integer.numberOfTrailingZeros(left);
      Batch part =
          (connectorsOfEvery & (1 << connector)) != 0 ? batch.copy() : partFor(batch, connector);
      Admission admission;
      try {
        admission = connectors[connector].consume(part);
      } catch (RuntimeException | Error e) {
        part.clear();
        throw e;
      }
      if (admission != Admission.ACCEPTED) {
        part.clear();
        if (refused != Admission.FAILED) {
          refused = admission;
        }
      }
    }
    if (refused != null) {
      return refused;
    }
    if (mixed) {
      split(batch, exporterUnion);
    } else {
      hand(batch, firstExporters);
    }
    return Admission.ACCEPTED;
  }

  /** A copy of the requests of {@code batch} that go to connector {@code connector}. */
  private Batch partFor(Batch batch, int connector) {
    Batch[] parts = {new Batch(batch.signal()), new Batch(batch.signal())};
    int bit = 1 << connector;
    try {
      batch.partitionInto(
          parts, item -> (connectorsOf(DurableRequest.of(item.request())) & bit) != 0 ? 1 : 0);
    } catch (RuntimeException | Error e) {
      parts[1].clear();
      throw e;
    } finally {
      parts[0].clear();
    }
    return parts[1];
  }

  /** The connectors (a bit per index) a request goes to. */
  private int connectorsOf(DurableRequest durable) {
    if (durable == null || !durable.replayed()) {
      return allConnectors;
    }
    int owed = durable.owedConsumers();
    int targets = 0;
    for (int c = 0; c < consumersBehind.length; c++) {
      if ((consumersBehind[c] & owed) != 0) {
        targets |= 1 << c;
      }
    }
    return targets;
  }

  /**
   * A batch holding replayed requests (or one that met an exporter without room): each request goes
   * to its own exporters, and only those need room.
   */
  private Admission consumeReplayed(Batch batch) {
    int slices = batch.sliceCount();
    int first = slices == 0 ? allExporters : -1;
    int union = slices == 0 ? allExporters : 0;
    boolean mixed = false;
    for (int i = 0; i < slices; ) {
      OtlpIndex request = batch.requestOf(i);
      i = runEnd(batch, i, request);
      int targets = targetsOf(DurableRequest.of(request));
      union |= targets;
      if (first < 0) {
        first = targets;
      } else if (targets != first) {
        mixed = true;
      }
    }
    for (int left = union; left != 0; left &= left - 1) {
      if (!exporters[Integer.numberOfTrailingZeros(left)].hasCapacity()) {
        return Admission.FULL;
      }
    }
    if (mixed) {
      split(batch, union);
    } else {
      hand(batch, first);
    }
    return Admission.ACCEPTED;
  }

  /**
   * Counts slices {@code [from, to)} as taken by the consumers of {@code consumers} (or gives them
   * back, when not {@code taken}). When taking, stops before the first request that does not go to
   * every exporter and returns where it stopped.
   */
  private int count(Batch batch, int from, int to, int consumers, boolean taken) {
    for (int i = from; i < to; ) {
      OtlpIndex request = batch.requestOf(i);
      int end = Math.min(runEnd(batch, i, request), to);
      DurableRequest durable = DurableRequest.of(request);
      if (durable != null) {
        if (taken && targetsOf(durable) != allExporters) {
          return i;
        }
        durable.handed(consumers, taken ? end - i : i - end);
        if (taken) {
          settleOthers(durable, request);
        }
      }
      i = end;
    }
    return to;
  }

  /** The exporters (a bit per index) a request goes to. */
  private int targetsOf(DurableRequest durable) {
    if (durable == null || !durable.replayed()) {
      return allExporters;
    }
    int owed = durable.owedConsumers();
    int targets = 0;
    for (int e = 0; e < consumerOf.length; e++) {
      if (consumerOf[e] >= 0 && (owed & (1 << consumerOf[e])) != 0) {
        targets |= 1 << e;
      }
    }
    return targets;
  }

  /** Splits a batch of replayed requests into one part per set of exporters, and hands each. */
  private void split(Batch batch, int union) {
    int[] sets = new int[Integer.bitCount(union) + 1];
    int count = 0;
    for (int i = 0; i < batch.sliceCount(); ) {
      OtlpIndex request = batch.requestOf(i);
      i = runEnd(batch, i, request);
      int targets = targetsOf(DurableRequest.of(request));
      if (indexOf(sets, count, targets) < 0) {
        if (count == sets.length) {
          sets = java.util.Arrays.copyOf(sets, count * 2);
        }
        sets[count++] = targets;
      }
    }
    int[] partSets = java.util.Arrays.copyOf(sets, count);
    Batch[] parts = new Batch[count];
    for (int p = 0; p < count; p++) {
      parts[p] = new Batch(batch.signal());
    }
    batch.partitionInto(
        parts, item -> indexOf(partSets, partSets.length, targetsOf(of(item.request()))));
    batch.clear();
    for (int p = 0; p < count; p++) {
      if (parts[p].unitCount() == 0) {
        parts[p].clear();
      } else {
        hand(parts[p], partSets[p]);
      }
    }
  }

  private static DurableRequest of(OtlpIndex request) {
    return DurableRequest.of(request);
  }

  private static int indexOf(int[] sets, int count, int targets) {
    for (int p = 0; p < count; p++) {
      if (sets[p] == targets) {
        return p;
      }
    }
    return -1;
  }

  /** Hands the batch to the exporters of {@code targets}, after counting what each takes. */
  private void hand(Batch batch, int targets) {
    if (targets == 0) {
      batch.clear(); // replayed requests none of this pipeline's exporters owe
      return;
    }
    int consumers = consumersOf(targets);
    for (int i = 0; i < batch.sliceCount(); ) {
      OtlpIndex request = batch.requestOf(i);
      int end = runEnd(batch, i, request);
      DurableRequest durable = DurableRequest.of(request);
      if (durable != null) {
        durable.handed(consumers, end - i);
        settleOthers(durable, request);
      }
      i = end;
    }
    send(batch, targets);
  }

  /** Sends the counted batch to the exporters of {@code targets}, each with its own handle. */
  private void send(Batch batch, int targets) {
    AtomicInteger holders = new AtomicInteger(Integer.bitCount(targets));
    for (int left = targets; left != 0; left &= left - 1) {
      int exporter = Integer.numberOfTrailingZeros(left);
      exporters[exporter].send(new SharedBatch(batch, holders, this, exporter));
    }
  }

  @Override
  public void releasing(Batch batch, int owner) {
    int consumer = consumerOf[owner];
    if (consumer < 0) {
      return;
    }
    for (int i = 0; i < batch.sliceCount(); ) {
      OtlpIndex request = batch.requestOf(i);
      int end = runEnd(batch, i, request);
      DurableRequest durable = DurableRequest.of(request);
      if (durable != null) {
        durable.releasedBy(consumer, end - i, request);
      }
      i = end;
    }
  }

  @Override
  public void clearing(Batch batch) {
    for (int i = 0; i < batch.sliceCount(); ) {
      OtlpIndex request = batch.requestOf(i);
      int end = runEnd(batch, i, request);
      DurableRequest durable = DurableRequest.of(request);
      if (durable != null) {
        durable.leaving(end - i);
      }
      i = end;
    }
  }

  /**
   * Slices of {@code request} reached these exporters: if they were the last upstream, the
   * consumers that let go of all theirs (in other pipelines, perhaps long ago) are done with it
   * now, not only once these exporters are.
   */
  private static void settleOthers(DurableRequest durable, OtlpIndex request) {
    durable.settle(durable.owedConsumers(), request);
  }

  /** The log's consumers (a bit per index) among the exporters of {@code targets}. */
  private int consumersOf(int targets) {
    int consumers = 0;
    for (int left = targets; left != 0; left &= left - 1) {
      int consumer = consumerOf[Integer.numberOfTrailingZeros(left)];
      if (consumer >= 0) {
        consumers |= 1 << consumer;
      }
    }
    return consumers;
  }

  /** The end of the run of slices from {@code start} that refer to {@code request}. */
  private static int runEnd(Batch batch, int start, OtlpIndex request) {
    int end = start + 1;
    while (end < batch.sliceCount() && batch.requestOf(end) == request) {
      end++;
    }
    return end;
  }
}
