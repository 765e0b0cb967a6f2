package dev.sluice.exporter.otlp;

import dev.sluice.component.AuthConfig;
import dev.sluice.component.AuthReference;
import dev.sluice.component.AuthSide;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.GoDuration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The keys the {@code otlp} and {@code otlphttp} exporters share, checked and read the same way for
 * both: {@code timeout}, {@code sending_queue}, {@code retry_on_failure} and {@code auth}.
 */
final class ExporterKeys {
  private ExporterKeys() {}

  /**
   * Checks {@code timeout} (positive); {@code sending_queue}, {@code retry_on_failure}, {@code tls}
   * and {@code auth} are sections that check themselves.
   */
  static void validateTimeout(Duration timeout, ConfigProblems problems) {
    if (timeout.isNegative() || timeout.isZero()) {
      problems.add("timeout", "must be positive, was " + GoDuration.format(timeout));
    }
  }

  /** The client authenticator {@code auth} names, if present. */
  static List<AuthReference> authReferences(AuthConfig auth) {
    List<AuthReference> references = new ArrayList<>();
    AuthConfig.reference(auth, "auth", AuthSide.CLIENT, references);
    return references;
  }
}
