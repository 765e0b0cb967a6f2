package dev.sluice.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects the errors and warnings of one load, so that every problem is reported at once: up to
 * {@link #MAX_KEPT} of each, then only counted, so that a document with a problem repeated on every
 * line does not make a report (and its message) that grows with the document.
 */
final class Diagnostics {
  /** The most errors, and the most warnings, that a report lists. */
  static final int MAX_KEPT = 100;

  private final List<ConfigProblem> errors = new ArrayList<>();
  private final List<ConfigProblem> warnings = new ArrayList<>();
  private int errorCount;
  private int warningCount;

  void error(Location location, String path, String message) {
    if (errorCount++ < MAX_KEPT) {
      errors.add(new ConfigProblem(location, path, message));
    }
  }

  void warn(Location location, String path, String message) {
    if (warningCount++ < MAX_KEPT) {
      warnings.add(new ConfigProblem(location, path, message));
    }
  }

  /** Every error found, listed or not. */
  int errorCount() {
    return errorCount;
  }

  /** The errors in source order, and a last one saying how many more there are. */
  List<ConfigProblem> errors() {
    return sorted(errors, errorCount, "errors");
  }

  /** The warnings in source order, and a last one saying how many more there are. */
  List<ConfigProblem> warnings() {
    return sorted(warnings, warningCount, "warnings");
  }

  private static List<ConfigProblem> sorted(List<ConfigProblem> kept, int count, String what) {
    List<ConfigProblem> sorted = new ArrayList<>(kept);
    sorted.sort(ConfigProblem.BY_LOCATION);
    if (count > kept.size()) {
      ConfigProblem last = sorted.get(sorted.size() - 1);
      sorted.add(
          new ConfigProblem(
              last.location(), "", (count - kept.size()) + " more " + what + " not listed"));
    }
    return List.copyOf(sorted);
  }

  /** Throws a {@link ConfigException} with every error, if there is any. */
  void throwIfErrors() throws ConfigException {
    if (errorCount > 0) {
      throw new ConfigException(errors());
    }
  }

  static String join(String path, String key) {
    if (key.isEmpty()) {
      return path;
    }
    return path.isEmpty() ? key : path + "." + key;
  }
}
