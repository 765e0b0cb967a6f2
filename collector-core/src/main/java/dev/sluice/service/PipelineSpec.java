package dev.sluice.service;

import dev.sluice.component.ComponentId;
import dev.sluice.pdata.Signal;
import java.util.List;

/**
 * A pipeline of {@code service.pipelines}, as the {@link PipelineGraph} takes it: the components it
 * lists, by id.
 *
 * @param name the pipeline's key: {@code traces}, {@code traces/2}
 * @param signal the signal its type names
 * @param receivers the receivers, in the order listed
 * @param processors the processors, in the order data passes them
 * @param exporters the exporters, in the order listed
 */
public record PipelineSpec(
    String name,
    Signal signal,
    List<ComponentId> receivers,
    List<ComponentId> processors,
    List<ComponentId> exporters) {
  public PipelineSpec {
    receivers = List.copyOf(receivers);
    processors = List.copyOf(processors);
    exporters = List.copyOf(exporters);
  }
}
