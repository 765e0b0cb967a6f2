package dev.sluice.component.attributeactions;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Validatable;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One attribute action, with the Go collector's keys ({@code key}, {@code value}, {@code
 * from_attribute}, {@code from_context}, {@code action}, {@code pattern}, {@code converted_type}).
 * {@code value} takes the type the file gives it: a string, an integer, a float, a bool, a list or
 * a map. {@code action} is one of {@code insert}, {@code update}, {@code upsert}, {@code delete},
 * {@code hash}, {@code extract}, {@code convert}, in any case.
 *
 * <p>{@code from_context} is refused: the receivers' client metadata ({@code metadata.*}, {@code
 * auth.*}, {@code client.address}) does not reach Sluice's processors.
 */
public record ActionConfig(
    String key,
    Object value,
    String fromAttribute,
    String fromContext,
    String action,
    String pattern,
    String convertedType)
    implements Validatable {

  static final List<String> ACTIONS =
      List.of("insert", "update", "upsert", "delete", "hash", "extract", "convert");
  static final List<String> CONVERSIONS = List.of("int", "double", "string");

  /** The action in lower case, as Go compares it; empty when not set. */
  public String actionName() {
    return action == null ? "" : action.toLowerCase(Locale.ROOT);
  }

  @Override
  public void validate(ConfigProblems problems) {
    String name = actionName();
    if (name.isEmpty()) {
      problems.add("action", "missing required field \"action\"; use one of " + ACTIONS);
      return;
    }
    if (!ACTIONS.contains(name)) {
      problems.add("action", "unsupported action \"" + action + "\"; use one of " + ACTIONS);
      return;
    }
    if (set(fromContext)) {
      problems.add(
          "from_context",
          "not supported: the receivers' client metadata (metadata.*, auth.*, client.address)"
              + " does not reach processors in Sluice; use \"value\" or \"from_attribute\"");
    }
    switch (name) {
      case "insert", "update", "upsert" -> validateSet(name, problems);
      case "delete", "hash" -> validateKeys(name, problems);
      case "extract" -> validateExtract(problems);
      default -> validateConvert(problems);
    }
    if (value != null) {
      checkValue(value, "value", problems);
    }
  }

  private void validateSet(String name, ConfigProblems problems) {
    requireKey(name, problems);
    int sources =
        (value != null ? 1 : 0) + (set(fromAttribute) ? 1 : 0) + (set(fromContext) ? 1 : 0);
    if (sources == 0) {
      problems.add(
          "value",
          "action \"" + name + "\" needs one of \"value\", \"from_attribute\" or \"from_context\"");
    } else if (sources > 1) {
      problems.add(
          "value",
          "action \""
              + name
              + "\" takes only one of \"value\", \"from_attribute\" and \"from_context\"");
    }
    refuse(name, set(pattern), "pattern", problems);
    refuse(name, set(convertedType), "converted_type", problems);
  }

  private void validateKeys(String name, ConfigProblems problems) {
    if (!set(key) && !set(pattern)) {
      problems.add("key", "action \"" + name + "\" needs at least one of \"key\" and \"pattern\"");
    }
    refuse(name, value != null, "value", problems);
    refuse(name, set(fromAttribute), "from_attribute", problems);
    refuse(name, set(convertedType), "converted_type", problems);
    if (set(pattern)) {
      compile(problems);
    }
  }

  private void validateExtract(ConfigProblems problems) {
    requireKey("extract", problems);
    refuse("extract", value != null, "value", problems);
    refuse("extract", set(fromAttribute), "from_attribute", problems);
    refuse("extract", set(convertedType), "converted_type", problems);
    if (!set(pattern)) {
      problems.add("pattern", "missing required field \"pattern\" for action \"extract\"");
      return;
    }
    GoPattern compiled = compile(problems);
    if (compiled == null) {
      return;
    }
    List<String> names = compiled.groupNames();
    if (names.isEmpty() || names.stream().allMatch(n -> n == null)) {
      problems.add(
          "pattern",
          "contains no named capture groups; action \"extract\" writes each named group"
              + " (?P<name>...) to the attribute of that name");
    } else if (names.contains(null)) {
      problems.add(
          "pattern",
          "contains an unnamed capture group; every group of an \"extract\" pattern needs a"
              + " name (?P<name>...), or use (?:...) for a group that captures nothing");
    }
  }

  private void validateConvert(ConfigProblems problems) {
    requireKey("convert", problems);
    refuse("convert", value != null, "value", problems);
    refuse("convert", set(fromAttribute), "from_attribute", problems);
    refuse("convert", set(pattern), "pattern", problems);
    if (!set(convertedType)) {
      problems.add(
          "converted_type",
          "missing required field \"converted_type\" for action \"convert\"; use one of "
              + CONVERSIONS);
    } else if (!CONVERSIONS.contains(convertedType)) {
      problems.add(
          "converted_type", "invalid value \"" + convertedType + "\"; use one of " + CONVERSIONS);
    }
  }

  /** The compiled pattern, or null after reporting why it does not compile. */
  GoPattern compile(ConfigProblems problems) {
    try {
      return GoPattern.compile(pattern);
    } catch (IllegalArgumentException e) {
      problems.add("pattern", "invalid pattern \"" + pattern + "\": " + e.getMessage());
      return null;
    }
  }

  private void requireKey(String name, ConfigProblems problems) {
    if (!set(key)) {
      problems.add("key", "missing required field \"key\" for action \"" + name + "\"");
    }
  }

  private static void refuse(String name, boolean present, String field, ConfigProblems problems) {
    if (present) {
      problems.add(field, "action \"" + name + "\" does not use \"" + field + "\"; remove it");
    }
  }

  private static void checkValue(Object v, String path, ConfigProblems problems) {
    if (v instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        checkValue(list.get(i), path + "[" + i + "]", problems);
      }
    } else if (v instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        checkValue(e.getValue(), path + "." + e.getKey(), problems);
      }
    } else if (!(v instanceof String
        || v instanceof Long
        || v instanceof Integer
        || v instanceof Double
        || v instanceof Boolean)) {
      problems.add(path, "cannot be a " + (v == null ? "null" : v.getClass().getSimpleName()));
    }
  }

  static boolean set(String text) {
    return text != null && !text.isEmpty();
  }
}
