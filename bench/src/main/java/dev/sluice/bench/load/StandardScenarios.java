package dev.sluice.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The standard benchmark set, read from {@code bench/scenarios/standard.list} (one scenario name a
 * line, {@code #} for comments), the one list that {@code bench/report.sh} and the report share.
 */
final class StandardScenarios {
  /** Where the list is, from the repository's root, as the report's other defaults are. */
  static final String DEFAULT_PATH = "bench/scenarios/standard.list";

  private StandardScenarios() {}

  /** The names in {@code file}, in order. */
  static List<String> read(Path file) throws IOException {
    return parse(Files.readAllLines(file));
  }

  static List<String> parse(List<String> lines) {
    List<String> names = new ArrayList<>();
    for (String line : lines) {
      String name = line.strip();
      if (!name.isEmpty() && !name.startsWith("#")) {
        names.add(name);
      }
    }
    return List.copyOf(names);
  }
}
