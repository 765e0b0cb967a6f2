package dev.sluice.processor.resource;

import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.FunctionProcessorFactory;
import dev.sluice.component.attributeactions.Actions;
import dev.sluice.pdata.Signal;

/** The {@code resource} processor type. */
public final class ResourceProcessorFactory implements FunctionProcessorFactory<ResourceConfig> {
  @Override
  public String type() {
    return "resource";
  }

  @Override
  public Class<ResourceConfig> configType() {
    return ResourceConfig.class;
  }

  @Override
  public ResourceConfig defaultConfig() {
    return ResourceConfig.DEFAULT;
  }

  @Override
  public BatchFunction<ResourceConfig> createFunction(
      ComponentSettings settings, ResourceConfig config, Signal signal) {
    return new ResourceProcessor(Actions.compile(config.attributes()), settings.logger());
  }
}
