package dev.sluice.config;

import java.util.ArrayList;
import java.util.List;

/** Collects the errors and warnings of one load, so that every problem is reported at once. */
final class Diagnostics {
  private final List<ConfigProblem> errors = new ArrayList<>();
  private final List<ConfigProblem> warnings = new ArrayList<>();

  void error(Location location, String path, String message) {
    errors.add(new ConfigProblem(location, path, message));
  }

  void warn(Location location, String path, String message) {
    warnings.add(new ConfigProblem(location, path, message));
  }

  int errorCount() {
    return errors.size();
  }

  /** The errors in source order. */
  List<ConfigProblem> errors() {
    List<ConfigProblem> sorted = new ArrayList<>(errors);
    sorted.sort(ConfigProblem.BY_LOCATION);
    return List.copyOf(sorted);
  }

  /** The warnings in source order. */
  List<ConfigProblem> warnings() {
    List<ConfigProblem> sorted = new ArrayList<>(warnings);
    sorted.sort(ConfigProblem.BY_LOCATION);
    return List.copyOf(sorted);
  }

  /** Throws a {@link ConfigException} with every error, if there is any. */
  void throwIfErrors() throws ConfigException {
    if (!errors.isEmpty()) {
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
