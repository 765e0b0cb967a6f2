package dev.sluice.extension.bearertokenauth;

import dev.sluice.component.CollectorStatus;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Extension;
import dev.sluice.component.ExtensionFactory;

/** The {@code bearertokenauth} extension type. */
public final class BearerTokenAuthExtensionFactory
    implements ExtensionFactory<BearerTokenAuthConfig> {
  @Override
  public String type() {
    return "bearertokenauth";
  }

  @Override
  public Class<BearerTokenAuthConfig> configType() {
    return BearerTokenAuthConfig.class;
  }

  @Override
  public BearerTokenAuthConfig defaultConfig() {
    return BearerTokenAuthConfig.DEFAULT;
  }

  @Override
  public Extension create(
      ComponentSettings settings, BearerTokenAuthConfig config, CollectorStatus status) {
    return new BearerTokenAuthExtension(
        settings, config, BearerTokenAuthExtension.POLL_INTERVAL_MILLIS);
  }
}
