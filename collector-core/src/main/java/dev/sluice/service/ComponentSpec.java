package dev.sluice.service;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ComponentFactory;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import java.util.Objects;

/**
 * A component declared in the configuration, as the {@link PipelineGraph} takes it.
 *
 * @param id the id pipelines and {@code service.extensions} name it by
 * @param factory the factory that makes it; its kind is the component's
 * @param config its bound and validated configuration, of {@code factory.configType()}
 */
public record ComponentSpec(ComponentId id, ComponentFactory<?> factory, ComponentConfig config) {
  public ComponentSpec {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(factory, "factory");
    if (!factory.configType().isInstance(config)) {
      throw new IllegalArgumentException(
          factory.kind().label()
              + " \""
              + id
              + "\" needs a configuration of "
              + factory.configType().getName()
              + ", not "
              + (config == null ? "null" : config.getClass().getName()));
    }
  }

  public ComponentKind kind() {
    return factory.kind();
  }
}
