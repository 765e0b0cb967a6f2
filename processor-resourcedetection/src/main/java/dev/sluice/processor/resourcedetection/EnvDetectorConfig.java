package dev.sluice.processor.resourcedetection;

import java.util.List;

/**
 * The {@code env} detector's settings.
 *
 * @param allowList the keys of {@code OTEL_RESOURCE_ATTRIBUTES} to keep; null (left out) keeps
 *     every key, an empty list none
 */
public record EnvDetectorConfig(List<String> allowList) {
  public static final EnvDetectorConfig DEFAULT = new EnvDetectorConfig(null);
}
