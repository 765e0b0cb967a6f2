package dev.sluice.extension.healthcheck;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Endpoint;

/**
 * The {@code health_check} extension's configuration, with the OpenTelemetry Collector's keys and
 * defaults.
 *
 * @param endpoint where to listen, {@code localhost:13133}
 * @param path the path that answers, {@code /}
 */
public record HealthCheckConfig(String endpoint, String path) implements ComponentConfig {
  public static final HealthCheckConfig DEFAULT = new HealthCheckConfig("localhost:13133", "/");

  @Override
  public void validate(ConfigProblems problems) {
    Endpoint.validate(endpoint, "endpoint", problems);
    if (!path.startsWith("/")) {
      problems.add("path", "must start with /, was \"" + path + "\"");
    }
  }
}
