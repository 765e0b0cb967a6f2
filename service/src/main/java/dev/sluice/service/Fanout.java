package dev.sluice.service;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.pdata.otlp.Batch;
import java.util.List;

/**
 * The end of a pipeline: hands each batch to every exporter of the pipeline, all or none. When any
 * exporter's queue is full the batch is refused and stays with the caller, so a slow exporter holds
 * the pipeline back instead of losing data.
 */
public final class Fanout implements BatchConsumer {
  private final List<QueuedExporter> exporters;

  public Fanout(List<QueuedExporter> exporters) {
    if (exporters.isEmpty()) {
      throw new IllegalArgumentException("a pipeline needs at least one exporter");
    }
    this.exporters = List.copyOf(exporters);
  }

  @Override
  public Admission consume(Batch batch) {
    for (QueuedExporter exporter : exporters) {
      if (!exporter.hasCapacity()) {
        return Admission.FULL;
      }
    }
    SharedBatch shared = new SharedBatch(batch, exporters.size());
    for (int i = 0; i < exporters.size(); i++) {
      try {
        exporters.get(i).send(shared);
      } catch (InterruptedException e) {
        // The interrupted send dropped and released its share; the rest are never made.
        for (int j = i + 1; j < exporters.size(); j++) {
          shared.release();
        }
        Thread.currentThread().interrupt();
        break;
      }
    }
    return Admission.ACCEPTED;
  }
}
