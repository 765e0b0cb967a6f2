package dev.sluice.examples;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Endpoint;

/**
 * The {@code lines} example receiver's configuration.
 *
 * @param endpoint where it listens, {@code host:port}
 */
public record LinesReceiverConfig(String endpoint) implements ComponentConfig {
  public static final LinesReceiverConfig DEFAULT = new LinesReceiverConfig("localhost:4319");

  @Override
  public void validate(ConfigProblems problems) {
    Endpoint.validate(endpoint, "endpoint", problems);
  }
}
