package dev.sluice.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A configuration that cannot be used, with every problem found in it. {@link #getMessage()} lists
 * the problems one per line.
 */
public final class ConfigException extends Exception {
  private final List<ConfigProblem> problems;

  public ConfigException(List<ConfigProblem> problems) {
    super(problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n")));
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("a ConfigException needs at least one problem");
    }
    this.problems = List.copyOf(problems);
  }

  /** The problems, in the order of their locations in the source. */
  public List<ConfigProblem> problems() {
    return problems;
  }
}
