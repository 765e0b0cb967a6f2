package dev.sluice.processor.resourcedetection;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.GoDuration;
import java.time.Duration;
import java.util.List;

/**
 * The {@code resourcedetection} processor's configuration, with the OpenTelemetry Collector's keys
 * and defaults for the detectors this build has ({@code env} and {@code system}).
 *
 * @param detectors the detectors to run, in order; where two detect the same attribute, the one
 *     listed first wins
 * @param override whether detected attributes replace a resource's own (true) or only fill in the
 *     ones it lacks (false)
 * @param timeout how long detection at start may take, retries included
 * @param refreshInterval periodic re-detection; this build detects once, so only 0 is accepted
 * @param env the {@code env} detector's settings
 * @param system the {@code system} detector's settings
 */
public record ResourceDetectionConfig(
    List<String> detectors,
    boolean override,
    Duration timeout,
    Duration refreshInterval,
    EnvDetectorConfig env,
    SystemDetectorConfig system)
    implements ComponentConfig {
  static final String ENV = "env";
  static final String SYSTEM = "system";

  /** The detectors this build has. */
  static final List<String> SUPPORTED_DETECTORS = List.of(ENV, SYSTEM);

  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  public static final ResourceDetectionConfig DEFAULT =
      new ResourceDetectionConfig(
          List.of(ENV),
          true,
          DEFAULT_TIMEOUT,
          Duration.ZERO,
          EnvDetectorConfig.DEFAULT,
          SystemDetectorConfig.DEFAULT);

  @Override
  public void validate(ConfigProblems problems) {
    if (detectors.isEmpty()) {
      // The Go collector fails at start then ("no detectors succeeded"); refuse it up front.
      problems.add(
          "detectors",
          "must list at least one detector; this build has: "
              + String.join(", ", SUPPORTED_DETECTORS));
    }
    for (int i = 0; i < detectors.size(); i++) {
      String name = detectors.get(i).strip();
      if (!SUPPORTED_DETECTORS.contains(name)) {
        problems
            .under("detectors")
            .item(i)
            .add(
                "",
                "unsupported detector "
                    + quote(name)
                    + "; this build has: "
                    + String.join(", ", SUPPORTED_DETECTORS));
      }
    }
    if (timeout.isNegative() || timeout.isZero()) {
      problems.add("timeout", "must be positive, was " + GoDuration.format(timeout));
    }
    if (!refreshInterval.isZero()) {
      problems.add(
          "refresh_interval",
          "periodic re-detection is not supported by this build (attributes are detected once,"
              + " at start); leave it out or set it to 0");
    }
  }

  /** The detector names as written, without the spaces around them that Go also ignores. */
  List<String> detectorNames() {
    return detectors.stream().map(String::strip).toList();
  }

  static String quote(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
