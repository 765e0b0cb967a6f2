package dev.sluice.extension.basicauth;

import dev.sluice.component.CollectorStatus;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Extension;
import dev.sluice.component.ExtensionFactory;

/** The {@code basicauth} extension type. */
public final class BasicAuthExtensionFactory implements ExtensionFactory<BasicAuthConfig> {
  @Override
  public String type() {
    return "basicauth";
  }

  @Override
  public Class<BasicAuthConfig> configType() {
    return BasicAuthConfig.class;
  }

  @Override
  public BasicAuthConfig defaultConfig() {
    return BasicAuthConfig.DEFAULT;
  }

  @Override
  public Extension create(
      ComponentSettings settings, BasicAuthConfig config, CollectorStatus status) {
    return new BasicAuthExtension(config);
  }
}
