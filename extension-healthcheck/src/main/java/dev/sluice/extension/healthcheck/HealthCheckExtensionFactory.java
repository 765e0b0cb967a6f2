package dev.sluice.extension.healthcheck;

import dev.sluice.component.CollectorStatus;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Extension;
import dev.sluice.component.ExtensionFactory;

/** The {@code health_check} extension type. */
public final class HealthCheckExtensionFactory implements ExtensionFactory<HealthCheckConfig> {
  @Override
  public String type() {
    return "health_check";
  }

  @Override
  public Class<HealthCheckConfig> configType() {
    return HealthCheckConfig.class;
  }

  @Override
  public HealthCheckConfig defaultConfig() {
    return HealthCheckConfig.DEFAULT;
  }

  @Override
  public Extension create(
      ComponentSettings settings, HealthCheckConfig config, CollectorStatus status) {
    return new HealthCheckExtension(config, status);
  }
}
