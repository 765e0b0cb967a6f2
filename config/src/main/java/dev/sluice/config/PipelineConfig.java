package dev.sluice.config;

import dev.sluice.component.ComponentId;
import dev.sluice.pdata.Signal;
import java.util.List;

/**
 * A pipeline of {@code service.pipelines}.
 *
 * @param name the pipeline's key: {@code traces}, {@code traces/2}
 * @param signal the signal its type names
 * @param receivers the receivers, in the order listed (component ids, as in {@link
 *     ConfiguredComponent#id()})
 * @param processors the processors, in the order data passes them
 * @param exporters the exporters, in the order listed
 * @param location where the pipeline's key is written
 */
public record PipelineConfig(
    String name,
    Signal signal,
    List<ComponentId> receivers,
    List<ComponentId> processors,
    List<ComponentId> exporters,
    Location location) {
  public PipelineConfig {
    receivers = List.copyOf(receivers);
    processors = List.copyOf(processors);
    exporters = List.copyOf(exporters);
  }
}
