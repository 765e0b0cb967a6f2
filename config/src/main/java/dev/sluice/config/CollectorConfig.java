package dev.sluice.config;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A loaded and validated configuration.
 *
 * @param source the name of the file or text it was read from
 * @param receivers the receivers declared, in file order
 * @param processors the processors declared, in file order
 * @param exporters the exporters declared, in file order
 * @param connectors the connectors declared, in file order
 * @param extensions the extensions declared, in file order
 * @param pipelines the pipelines, in file order
 * @param serviceExtensions the extensions to start ({@code service.extensions}), in order
 * @param telemetry the collector's own telemetry settings
 * @param warnings what was accepted but is worth logging: unset environment variables, settings
 *     that are accepted for compatibility and ignored, components that nothing uses
 */
public record CollectorConfig(
    String source,
    List<ConfiguredComponent> receivers,
    List<ConfiguredComponent> processors,
    List<ConfiguredComponent> exporters,
    List<ConfiguredComponent> connectors,
    List<ConfiguredComponent> extensions,
    List<PipelineConfig> pipelines,
    List<ComponentId> serviceExtensions,
    TelemetrySettings telemetry,
    List<ConfigProblem> warnings) {

  public CollectorConfig {
    receivers = List.copyOf(receivers);
    processors = List.copyOf(processors);
    exporters = List.copyOf(exporters);
    connectors = List.copyOf(connectors);
    extensions = List.copyOf(extensions);
    pipelines = List.copyOf(pipelines);
    serviceExtensions = List.copyOf(serviceExtensions);
    warnings = List.copyOf(warnings);
  }

  /** The components of {@code kind} declared, in file order, used or not. */
  public List<ConfiguredComponent> components(ComponentKind kind) {
    return switch (kind) {
      case RECEIVER -> receivers;
      case PROCESSOR -> processors;
      case EXPORTER -> exporters;
      case CONNECTOR -> connectors;
      case EXTENSION -> extensions;
    };
  }

  /** The component of {@code kind} with {@code id}. */
  public Optional<ConfiguredComponent> component(ComponentKind kind, ComponentId id) {
    return components(kind).stream().filter(c -> c.id().equals(id)).findFirst();
  }

  /** The components of {@code kind} that are used, the ones to start. */
  public List<ConfiguredComponent> used(ComponentKind kind) {
    return components(kind).stream().filter(ConfiguredComponent::used).toList();
  }

  /** Every component declared but not used, of all kinds: the ones the daemon ignores. */
  public List<ConfiguredComponent> unused() {
    List<ConfiguredComponent> unused = new ArrayList<>();
    for (ComponentKind kind : ComponentKind.values()) {
      components(kind).stream().filter(c -> !c.used()).forEach(unused::add);
    }
    return List.copyOf(unused);
  }
}
