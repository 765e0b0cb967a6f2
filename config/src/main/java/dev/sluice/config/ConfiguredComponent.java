package dev.sluice.config;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ComponentFactory;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;

/**
 * A component declared in the configuration.
 *
 * @param id the id, with the factory's own type where the file used an alias ({@code otlp_grpc}
 *     becomes {@code otlp}); pipelines refer to components by these ids
 * @param factory the factory that makes the component
 * @param config the bound and validated configuration record, of {@code factory.configType()}
 * @param location where the component's key is written
 * @param used whether a pipeline lists the component (for an extension: whether {@code
 *     service.extensions} does); unused components are not started, as in the OpenTelemetry
 *     Collector
 */
public record ConfiguredComponent(
    ComponentId id,
    ComponentFactory<?> factory,
    ComponentConfig config,
    Location location,
    boolean used) {
  public ComponentKind kind() {
    return factory.kind();
  }
}
