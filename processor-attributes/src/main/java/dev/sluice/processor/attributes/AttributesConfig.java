package dev.sluice.processor.attributes;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.attributeactions.ActionConfig;
import java.util.List;

/**
 * The {@code attributes} processor's configuration, with the OpenTelemetry Collector's keys: {@code
 * actions} (see {@link ActionConfig}), applied in order to the attributes of each span, log record
 * or data point that {@code include} selects (all when left out) and {@code exclude} does not.
 */
public record AttributesConfig(
    List<ActionConfig> actions,
    @OptionalSection MatchProperties include,
    @OptionalSection MatchProperties exclude)
    implements ComponentConfig {
  public static final AttributesConfig DEFAULT = new AttributesConfig(List.of(), null, null);

  @Override
  public void validate(ConfigProblems problems) {
    if (actions.isEmpty()) {
      problems.add("actions", "missing required field \"actions\": list the actions");
    }
  }
}
