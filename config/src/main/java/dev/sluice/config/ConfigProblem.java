package dev.sluice.config;

import java.util.Comparator;

/**
 * One thing wrong (or, as a warning, worth knowing) about a configuration: where it is, the dotted
 * key path it concerns (empty for problems with the document as a whole) and what it is.
 *
 * <p>{@link #toString()} reads {@code config.yaml:12:5: exporters.otlp.timeout: expected a duration
 * such as 5s or 200ms, found "5x"}.
 */
public record ConfigProblem(Location location, String path, String message) {
  /** Orders problems by where they are in the source, first line first. */
  public static final Comparator<ConfigProblem> BY_LOCATION =
      Comparator.comparing((ConfigProblem p) -> p.location().source())
          .thenComparingInt(p -> p.location().line())
          .thenComparingInt(p -> p.location().column());

  @Override
  public String toString() {
    return path.isEmpty() ? location + ": " + message : location + ": " + path + ": " + message;
  }
}
