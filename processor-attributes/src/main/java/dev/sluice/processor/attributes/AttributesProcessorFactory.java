package dev.sluice.processor.attributes;

import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.FunctionProcessorFactory;
import dev.sluice.component.attributeactions.Actions;
import dev.sluice.pdata.Signal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The {@code attributes} processor type. */
public final class AttributesProcessorFactory
    implements FunctionProcessorFactory<AttributesConfig> {
  @Override
  public String type() {
    return "attributes";
  }

  @Override
  public Class<AttributesConfig> configType() {
    return AttributesConfig.class;
  }

  @Override
  public AttributesConfig defaultConfig() {
    return AttributesConfig.DEFAULT;
  }

  /**
   * Makes the function for a pipeline of {@code signal}.
   *
   * @throws IllegalArgumentException when {@code include} or {@code exclude} has fields that do not
   *     apply to the signal, or none that do, as the Go collector refuses them
   */
  @Override
  public BatchFunction<AttributesConfig> createFunction(
      ComponentSettings settings, AttributesConfig config, Signal signal) {
    List<String> problems = new ArrayList<>();
    if (config.include() != null) {
      config.include().problemsFor(signal).forEach(p -> problems.add("include: " + p));
    }
    if (config.exclude() != null) {
      config.exclude().problemsFor(signal).forEach(p -> problems.add("exclude: " + p));
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          settings.id()
              + " in a "
              + signal.name().toLowerCase(Locale.ROOT)
              + " pipeline: "
              + String.join("; ", problems));
    }
    return new AttributesProcessor(
        Actions.compile(config.actions()), config, signal, settings.logger());
  }
}
