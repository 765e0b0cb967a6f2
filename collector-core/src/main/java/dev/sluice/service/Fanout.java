package dev.sluice.service;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.pdata.Batch;
import dev.sluice.service.sender.SendingChain;
import java.util.List;

/**
 * The end of a pipeline: hands each batch to every exporter of the pipeline, all or none. When any
 * exporter has no room (its queue is full, or without a queue all its sending threads are busy) the
 * batch is refused and stays with the caller, so a slow exporter holds the pipeline back instead of
 * losing data. Never blocks: the exporters' sending threads do the sending.
 */
public final class Fanout implements BatchConsumer {
  private final List<SendingChain> exporters;

  public Fanout(List<SendingChain> exporters) {
    if (exporters.isEmpty()) {
      throw new IllegalArgumentException("a pipeline needs at least one exporter");
    }
    this.exporters = List.copyOf(exporters);
  }

  @Override
  public Admission consume(Batch batch) {
    for (SendingChain exporter : exporters) {
      if (!exporter.hasCapacity()) {
        return Admission.FULL;
      }
    }
    SharedBatch shared = new SharedBatch(batch, exporters.size());
    for (SendingChain exporter : exporters) {
      exporter.send(shared);
    }
    return Admission.ACCEPTED;
  }
}
