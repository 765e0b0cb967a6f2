package dev.sluice.processor.resourcedetection;

import java.util.Map;

/**
 * The {@code env} detector: the attributes in {@code OTEL_RESOURCE_ATTRIBUTES}, or, when that is
 * unset or blank, in the deprecated {@code OTEL_RESOURCE}, as the Go detector reads them. A
 * malformed variable fails detection (and so start) with the entry named.
 */
final class EnvDetector implements Detector {
  static final String VARIABLE = "OTEL_RESOURCE_ATTRIBUTES";
  static final String DEPRECATED_VARIABLE = "OTEL_RESOURCE";

  private final EnvDetectorConfig config;
  private final DetectionEnvironment environment;

  EnvDetector(EnvDetectorConfig config, DetectionEnvironment environment) {
    this.config = config;
    this.environment = environment;
  }

  @Override
  public String name() {
    return ResourceDetectionConfig.ENV;
  }

  @Override
  public Detected detect() throws DetectionException {
    String variable = VARIABLE;
    String text = environment.variable(VARIABLE);
    if (text == null || text.isBlank()) {
      variable = DEPRECATED_VARIABLE;
      text = environment.variable(DEPRECATED_VARIABLE);
    }
    if (text == null || text.isBlank()) {
      return new Detected(Map.of(), "");
    }
    Map<String, String> attributes = OtelResourceAttributes.parse(variable, text);
    if (config.allowList() != null) {
      attributes.keySet().retainAll(config.allowList());
    }
    return new Detected(attributes, "");
  }
}
