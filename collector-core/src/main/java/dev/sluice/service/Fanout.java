package dev.sluice.service;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.Connector;
import dev.sluice.pdata.Batch;
import dev.sluice.service.sender.SendingChain;
import java.util.List;

/**
 * The end of a pipeline: hands each batch to every exporter of the pipeline, all or none. When any
 * exporter has no room (its queue is full, or without a queue all its sending threads are busy) the
 * batch is refused and stays with the caller, so a slow exporter holds the pipeline back instead of
 * losing data. Never blocks: the exporters' sending threads do the sending.
 *
 * <p>Connectors listed among the exporters are offered the batch first, each a {@link Batch#copy()
 * copy} of its own, and answer at once for the pipelines they feed: when one refuses, the batch is
 * refused and the exporters get none of it (a connector that took it then gets it again with the
 * retry, as a pipeline does when a receiver feeds several).
 */
public final class Fanout implements BatchConsumer {
  private final List<SendingChain> exporters;
  private final List<Connector> connectors;

  public Fanout(List<SendingChain> exporters) {
    this(exporters, List.of());
  }

  public Fanout(List<SendingChain> exporters, List<Connector> connectors) {
    if (exporters.isEmpty() && connectors.isEmpty()) {
      throw new IllegalArgumentException("a pipeline needs at least one exporter");
    }
    this.exporters = List.copyOf(exporters);
    this.connectors = List.copyOf(connectors);
  }

  @Override
  public Admission consume(Batch batch) {
    for (SendingChain exporter : exporters) {
      if (!exporter.hasCapacity()) {
        return Admission.FULL;
      }
    }
    if (!connectors.isEmpty()) {
      if (exporters.isEmpty() && connectors.size() == 1) {
        return connectors.get(0).consume(batch);
      }
      Admission refused = toConnectors(batch);
      if (refused != null) {
        return refused;
      }
      if (exporters.isEmpty()) {
        batch.clear(); // each connector holds its own copy
        return Admission.ACCEPTED;
      }
    }
    SharedBatch shared = new SharedBatch(batch, exporters.size());
    for (SendingChain exporter : exporters) {
      exporter.send(shared);
    }
    return Admission.ACCEPTED;
  }

  /** Offers each connector a copy; null when each took it, else the refusal (failure first). */
  private Admission toConnectors(Batch batch) {
    Admission refused = null;
    for (Connector connector : connectors) {
      Batch copy = batch.copy();
      Admission admission;
      try {
        admission = connector.consume(copy);
      } catch (RuntimeException | Error e) {
        copy.clear();
        throw e;
      }
      if (admission != Admission.ACCEPTED) {
        copy.clear();
        if (refused != Admission.FAILED) {
          refused = admission;
        }
      }
    }
    return refused;
  }
}
