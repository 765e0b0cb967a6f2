package dev.sluice.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Expands environment variables in scalar values as the OpenTelemetry Collector does:
 *
 * <ul>
 *   <li>{@code ${env:NAME}} and {@code ${NAME}} are the variable's value;
 *   <li>{@code ${env:NAME:-default}} is the default when the variable is not set (a variable set to
 *       the empty string is used as it is); the default may itself hold references;
 *   <li>{@code $$} is one {@code $}, so {@code $${env:X}} is the text {@code ${env:X}};
 *   <li>{@code $NAME} without braces, a lone {@code $} and an unclosed {@code ${} stay as they are;
 *   <li>an unset variable without default expands to the empty string, with a warning;
 *   <li>other providers ({@code ${file:...}}, {@code ${http:...}}) and invalid names are errors.
 * </ul>
 *
 * <p>A variable's value is inserted as it is: it is not expanded again and not parsed as YAML (the
 * binder converts strings to numbers, booleans and durations where the target needs them).
 */
public final class EnvExpander {
  private static final Pattern NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]+");
  private static final int MAX_DEPTH = 10;

  private final Function<String, String> environment;

  /** Reads variables with {@code environment}, which answers null for an unset variable. */
  public EnvExpander(Function<String, String> environment) {
    this.environment = Objects.requireNonNull(environment);
  }

  /** Reads the process environment. */
  public static EnvExpander system() {
    return new EnvExpander(System::getenv);
  }

  /** Reads variables from {@code variables}; a name it lacks is unset. */
  public static EnvExpander of(Map<String, String> variables) {
    Map<String, String> copy = Map.copyOf(variables);
    return new EnvExpander(copy::get);
  }

  /**
   * The result of expanding one value.
   *
   * @param value the expanded text
   * @param changed whether the text held anything to expand ({@code ${...}} or {@code $$})
   * @param unsetReference whether the whole text was one reference to an unset variable without
   *     default: the loader then treats the value as left out, as the OpenTelemetry Collector does
   *     (it expands to nil there), so the component's default applies
   * @param warnings unset variables
   * @param errors invalid references
   */
  public record Expansion(
      String value,
      boolean changed,
      boolean unsetReference,
      List<String> warnings,
      List<String> errors) {
    public Expansion {
      warnings = List.copyOf(warnings);
      errors = List.copyOf(errors);
    }
  }

  public Expansion expand(String text) {
    if (text.indexOf('$') < 0) {
      return new Expansion(text, false, false, List.of(), List.of());
    }
    State state = new State();
    String value = expand(text, 0, state);
    boolean lone = text.startsWith("${") && findClose(text, 2) == text.length() - 1;
    boolean unsetReference = lone && !state.unset.isEmpty();
    List<String> warnings = new ArrayList<>();
    for (Unset u : state.unset) {
      warnings.add(
          "environment variable "
              + u.name()
              + " is not set: "
              + u.reference()
              + (unsetReference
                  ? " leaves the value out, so the default applies"
                  : " expands to an empty string"));
    }
    return new Expansion(value, state.changed, unsetReference, warnings, state.errors);
  }

  private record Unset(String name, String reference) {}

  private static final class State {
    boolean changed;
    final List<Unset> unset = new ArrayList<>();
    final List<String> errors = new ArrayList<>();
  }

  private String expand(String text, int depth, State state) {
    StringBuilder out = new StringBuilder(text.length());
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '$' && i + 1 < text.length()) {
        char next = text.charAt(i + 1);
        if (next == '$') {
          out.append('$');
          state.changed = true;
          i += 2;
          continue;
        }
        if (next == '{') {
          int close = findClose(text, i + 2);
          if (close < 0) {
            out.append(text, i, text.length());
            break;
          }
          state.changed = true;
          out.append(resolve(text.substring(i, close + 1), depth, state));
          i = close + 1;
          continue;
        }
      }
      out.append(c);
      i++;
    }
    return out.toString();
  }

  /** The index of the brace closing a reference whose content starts at {@code from}, or -1. */
  private static int findClose(String text, int from) {
    int depth = 1;
    int i = from;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '$' && i + 1 < text.length()) {
        char next = text.charAt(i + 1);
        if (next == '$') {
          i += 2;
          continue;
        }
        if (next == '{') {
          depth++;
          i += 2;
          continue;
        }
      }
      if (c == '}' && --depth == 0) {
        return i;
      }
      i++;
    }
    return -1;
  }

  /** The value of {@code reference}, which reads {@code ${...}}. */
  private String resolve(String reference, int depth, State state) {
    String inner = reference.substring(2, reference.length() - 1);
    String name = inner;
    String defaultValue = null;
    int colon = inner.indexOf(':');
    if (colon >= 0) {
      String scheme = inner.substring(0, colon);
      if (!scheme.equals("env")) {
        if (SCHEME.matcher(scheme).matches()) {
          state.errors.add(
              "unsupported config provider \""
                  + scheme
                  + "\" in "
                  + reference
                  + ": only ${env:NAME} and ${NAME} are available");
        } else {
          state.errors.add("invalid reference " + reference);
        }
        return "";
      }
      name = inner.substring(colon + 1);
      int dash = name.indexOf(":-");
      if (dash >= 0) {
        defaultValue = name.substring(dash + 2);
        name = name.substring(0, dash);
      }
    }
    if (!NAME.matcher(name).matches()) {
      state.errors.add(
          "invalid environment variable name "
              + ConfigNode.quote(name)
              + " in "
              + reference
              + ": a name is letters, digits and underscores, not starting with a digit");
      return "";
    }
    String value = environment.apply(name);
    if (value != null) {
      return value;
    }
    if (defaultValue != null) {
      if (depth >= MAX_DEPTH) {
        state.errors.add("references nested too deeply in " + reference);
        return "";
      }
      State nested = new State();
      String expanded = expand(defaultValue, depth + 1, nested);
      state.errors.addAll(nested.errors);
      state.unset.addAll(nested.unset);
      return expanded;
    }
    state.unset.add(new Unset(name, reference));
    return "";
  }
}
