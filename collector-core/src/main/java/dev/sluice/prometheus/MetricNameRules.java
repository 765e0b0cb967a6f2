package dev.sluice.prometheus;

import java.util.ArrayList;
import java.util.List;

/**
 * The metric name rules of {@link MetricNames}, without the cache: pure functions of the namespace,
 * the strategy, the OTLP name and unit, and the metric's {@link Kind}. An empty result means the
 * Collector refuses the name (and drops the metric).
 */
final class MetricNameRules {
  /** What of a metric's type the name depends on. */
  enum Kind {
    /** A gauge: {@code _ratio} when its unit is {@code 1}. */
    GAUGE,
    /** A monotonic sum: {@code _total}. */
    MONOTONIC_SUM,
    /** Anything else: a non-monotonic sum, a histogram, a summary, a metric without data. */
    OTHER
  }

  private static final String TOTAL = "total";
  private static final String RATIO = "ratio";

  private MetricNameRules() {}

  static String name(
      String namespace, TranslationStrategy strategy, String name, String unit, Kind kind) {
    if (strategy.escapes()) {
      String escaped =
          strategy.addsSuffixes()
              ? escapedWithSuffixes(namespace, name, unit, kind)
              : escapedWithoutSuffixes(namespace, name);
      return accepted(name, escaped);
    }
    String kept = namespace.isEmpty() ? name : namespace + "_" + name;
    return strategy.addsSuffixes() ? keptWithSuffixes(kept, unit, kind) : kept;
  }

  /**
   * The name split into runs of {@code [a-zA-Z0-9:]} (underscores split it too, so runs of them
   * collapse), the unit words added unless a token already is one, {@code total} or {@code ratio}
   * moved to the end, the namespace (as it is) in front.
   */
  private static String escapedWithSuffixes(String namespace, String name, String unit, Kind kind) {
    List<String> tokens = tokens(name, false);
    String main = cleanUnit(Units.main(unit));
    String per = cleanUnit(Units.per(unit));
    if (tokens.contains(main)) {
      main = "";
    }
    if (per.equals("per_")) {
      per = "";
    } else {
      per = trimSuffix(per, "_");
      if (tokens.contains(per)) {
        per = "";
      }
    }
    if (!per.isEmpty()) {
      main = trimSuffix(main, "_");
    }
    if (!main.isEmpty()) {
      tokens.add(main);
    }
    if (!per.isEmpty()) {
      tokens.add(per);
    }
    if (kind == Kind.MONOTONIC_SUM) {
      tokens.removeIf(TOTAL::equals);
      tokens.add(TOTAL);
    }
    // The unit as written, not trimmed; gauges only, since some receivers give counters unit 1.
    if (unit.equals("1") && kind == Kind.GAUGE) {
      tokens.removeIf(RATIO::equals);
      tokens.add(RATIO);
    }
    if (!namespace.isEmpty()) {
      tokens.add(0, namespace);
    }
    return digitGuard(String.join("_", tokens));
  }

  /**
   * Runs of characters outside {@code [a-zA-Z0-9_:]} become one {@code _}, and are dropped at the
   * ends; underscores are kept as they are. An escaped namespace goes in front, and then a leading
   * digit is left alone.
   */
  private static String escapedWithoutSuffixes(String namespace, String name) {
    String escaped = String.join("_", tokens(name, true));
    if (!namespace.isEmpty()) {
      return String.join("_", tokens(namespace, true)) + "_" + escaped;
    }
    return digitGuard(escaped);
  }

  /**
   * The UTF-8 name with suffixes: a {@code ratio}, {@code total} or "per" unit already at the end
   * (after one delimiter character) is taken off and put back in its place; the main unit word is
   * added unless the name ends with it. Unit words are not escaped.
   */
  private static String keptWithSuffixes(String name, String unit, Kind kind) {
    boolean ratio = unit.equals("1") && kind == Kind.GAUGE;
    boolean total = kind == Kind.MONOTONIC_SUM;
    String main = Units.main(unit);
    String per = Units.per(unit);
    if (ratio) {
      name = trimSuffixAndDelimiter(name, RATIO);
    }
    if (total && name != null) {
      name = trimSuffixAndDelimiter(name, TOTAL);
    }
    if (!per.isEmpty() && name != null) {
      name = trimSuffixAndDelimiter(name, per);
    }
    if (name == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(name);
    if (!main.isEmpty() && !name.endsWith(main)) {
      out.append('_').append(main);
    }
    if (!per.isEmpty()) {
      out.append('_').append(per);
    }
    if (total) {
      out.append("_total");
    }
    if (ratio) {
      out.append("_ratio");
    }
    return out.toString();
  }

  /**
   * {@code name} less {@code suffix} and the one byte before it, when it ends with {@code suffix}
   * and has more than one byte before it; {@code name} otherwise. Go cuts one byte, not one
   * character: when the character before the suffix is not ASCII the Collector's name is no longer
   * valid UTF-8, and null says so.
   */
  private static String trimSuffixAndDelimiter(String name, String suffix) {
    if (!name.endsWith(suffix) || utf8Length(name) <= utf8Length(suffix) + 1) {
      return name;
    }
    int delimiter = name.length() - suffix.length() - 1;
    return name.charAt(delimiter) < 0x80 ? name.substring(0, delimiter) : null;
  }

  /** Prometheus refuses an empty name, and one of underscores only that escaping made so. */
  private static String accepted(String original, String escaped) {
    if (escaped.isEmpty() || escaped.equals(original)) {
      return escaped;
    }
    for (int i = 0; i < escaped.length(); i++) {
      if (escaped.charAt(i) != '_') {
        return escaped;
      }
    }
    return "";
  }

  /** A name may not start with a digit: {@code _} goes in front of one that does. */
  private static String digitGuard(String name) {
    return !name.isEmpty() && isDigit(name.charAt(0)) ? "_" + name : name;
  }

  /**
   * The runs of valid characters ({@code [a-zA-Z0-9:]}, and {@code _} when {@code keepUnderscores})
   * between runs of others, empty runs left out.
   */
  private static List<String> tokens(String text, boolean keepUnderscores) {
    List<String> tokens = new ArrayList<>();
    int start = -1;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean valid = isNameChar(c) || (keepUnderscores && c == '_');
      if (valid && start < 0) {
        start = i;
      } else if (!valid && start >= 0) {
        tokens.add(text.substring(start, i));
        start = -1;
      }
    }
    if (start >= 0) {
      tokens.add(text.substring(start));
    }
    return tokens;
  }

  /**
   * A unit word made fit for a name: invalid characters to {@code _}, runs of {@code _} to one, one
   * leading {@code _} dropped (a trailing one stays).
   */
  static String cleanUnit(String unit) {
    StringBuilder out = new StringBuilder(unit.length());
    for (int i = 0; i < unit.length(); i++) {
      char c = isNameChar(unit.charAt(i)) ? unit.charAt(i) : '_';
      if (c == '_' && out.length() > 0 && out.charAt(out.length() - 1) == '_') {
        continue;
      }
      // A supplementary character is one rune in Go and one '_' here too, after the collapse.
      out.append(c);
    }
    if (out.length() > 0 && out.charAt(0) == '_') {
      out.deleteCharAt(0);
    }
    return out.toString();
  }

  private static String trimSuffix(String text, String suffix) {
    return text.endsWith(suffix) ? text.substring(0, text.length() - suffix.length()) : text;
  }

  static boolean isNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c == ':';
  }

  static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  static int utf8Length(String text) {
    int bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes++;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
