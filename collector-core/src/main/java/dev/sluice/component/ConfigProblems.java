package dev.sluice.component;

import java.util.ArrayList;
import java.util.List;

/**
 * Problems found while validating a configuration, each with the key path it concerns. Validation
 * reports every problem, not just the first.
 */
public final class ConfigProblems {
  /** One problem: the dotted key path (may be empty) and what is wrong. */
  public record Problem(String path, String message) {}

  private final List<Problem> problems;
  private final String prefix;

  public ConfigProblems() {
    this(new ArrayList<>(), "");
  }

  private ConfigProblems(List<Problem> problems, String prefix) {
    this.problems = problems;
    this.prefix = prefix;
  }

  /** Reports a problem with the value at {@code key} (a key or a dotted key path). */
  public void add(String key, String message) {
    problems.add(new Problem(join(prefix, key), message));
  }

  /** A view that reports into the same list under {@code key}, for a nested section. */
  public ConfigProblems under(String key) {
    return new ConfigProblems(problems, join(prefix, key));
  }

  /**
   * A view that reports into the same list under item {@code index} of the list this view is under,
   * for a section in a list: {@code under("inners").item(1)} reports {@code inners[1].weight}.
   */
  public ConfigProblems item(int index) {
    return new ConfigProblems(problems, prefix + "[" + index + "]");
  }

  public List<Problem> all() {
    return List.copyOf(problems);
  }

  public boolean isEmpty() {
    return problems.isEmpty();
  }

  private static String join(String prefix, String key) {
    if (prefix.isEmpty()) {
      return key;
    }
    return key.isEmpty() ? prefix : prefix + "." + key;
  }
}
