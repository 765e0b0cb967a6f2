package dev.sluice.processor.resource;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.attributeactions.ActionConfig;
import java.util.List;

/**
 * The {@code resource} processor's configuration, with the OpenTelemetry Collector's key: {@code
 * attributes}, the actions applied to each resource's attributes, in order (see {@link
 * ActionConfig}).
 */
public record ResourceConfig(List<ActionConfig> attributes) implements ComponentConfig {
  public static final ResourceConfig DEFAULT = new ResourceConfig(List.of());

  @Override
  public void validate(ConfigProblems problems) {
    if (attributes.isEmpty()) {
      problems.add("attributes", "missing required field \"attributes\": list the actions");
    }
  }
}
