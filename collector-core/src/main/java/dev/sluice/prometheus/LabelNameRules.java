package dev.sluice.prometheus;

/** The label name rules of {@link LabelNames}, without the cache. Empty means refused. */
final class LabelNameRules {
  private static final String RESERVED_MARK = "__";

  private LabelNameRules() {}

  static String label(String key, boolean escape) {
    if (key.isEmpty()) {
      return "";
    }
    if (!escape) {
      return underscoresOnly(key) ? "" : key;
    }
    String name = escaped(key);
    if (MetricNameRules.isDigit(name.charAt(0))) {
      name = "key_" + name;
    } else if (name.startsWith("_") && !name.startsWith(RESERVED_MARK)) {
      name = "key" + name;
    }
    return underscoresOnly(name) ? "" : name;
  }

  /** Invalid characters to {@code _}, runs collapsed; a reserved {@code __x__} keeps its marks. */
  private static String escaped(String key) {
    boolean reserved =
        key.length() >= 4 && key.startsWith(RESERVED_MARK) && key.endsWith(RESERVED_MARK);
    String inside = reserved ? key.substring(2, key.length() - 2) : key;
    StringBuilder out = new StringBuilder(key.length() + 4);
    if (reserved) {
      out.append(RESERVED_MARK);
    }
    int insideFrom = out.length();
    for (int i = 0; i < inside.length(); i++) {
      char c = inside.charAt(i);
      if (isLabelChar(c)) {
        out.append(c);
      } else if (out.length() == insideFrom || out.charAt(out.length() - 1) != '_') {
        out.append('_');
      }
    }
    if (reserved) {
      out.append(RESERVED_MARK);
    }
    return out.toString();
  }

  /** {@code [a-zA-Z0-9]}: the underscore is not one, so runs of it collapse too. */
  private static boolean isLabelChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || MetricNameRules.isDigit(c);
  }

  private static boolean underscoresOnly(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) != '_') {
        return false;
      }
    }
    return true;
  }
}
