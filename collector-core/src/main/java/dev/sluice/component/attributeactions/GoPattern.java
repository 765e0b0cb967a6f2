package dev.sluice.component.attributeactions;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A pattern in Go's RE2 syntax, as the Go collector's configurations hold them, compiled to a Java
 * {@link Pattern} that matches the same text:
 *
 * <ul>
 *   <li>named groups {@code (?P<name>re)} and {@code (?<name>re)} become plain groups, their names
 *       kept in group order ({@link #groupNames()}), so that names with {@code _} work;
 *   <li>{@code .} excludes only {@code \n} and {@code $} (outside multi-line mode) matches only at
 *       the end of the text, as in Go;
 *   <li>in character classes, {@code [:alpha:]} and the other ASCII classes are Go's, {@code [} and
 *       {@code &&} are literal; {@code \v} is the vertical tab;
 *   <li>what RE2 refuses and Java would take (look-around, back-references, possessive quantifiers,
 *       atomic groups) is refused.
 * </ul>
 */
public final class GoPattern {
  private static final Map<String, String> POSIX_CLASSES =
      Map.ofEntries(
          Map.entry("alnum", "\\p{Alnum}"),
          Map.entry("alpha", "\\p{Alpha}"),
          Map.entry("ascii", "\\p{ASCII}"),
          Map.entry("blank", "\\p{Blank}"),
          Map.entry("cntrl", "\\p{Cntrl}"),
          Map.entry("digit", "\\p{Digit}"),
          Map.entry("graph", "\\p{Graph}"),
          Map.entry("lower", "\\p{Lower}"),
          Map.entry("print", "\\p{Print}"),
          Map.entry("punct", "\\p{Punct}"),
          Map.entry("space", "\\p{Space}"),
          Map.entry("upper", "\\p{Upper}"),
          Map.entry("word", "\\w"),
          Map.entry("xdigit", "\\p{XDigit}"));

  /** A flag group that switches multi-line mode on: {@code (?m)}, {@code (?im:...)}. */
  private static final Pattern MULTI_LINE_FLAG = Pattern.compile("\\(\\?[a-z]*m[a-z-]*[:)]");

  private final Pattern pattern;
  private final List<String> groupNames;

  private GoPattern(Pattern pattern, List<String> groupNames) {
    this.pattern = pattern;
    this.groupNames = groupNames;
  }

  /**
   * Compiles {@code goPattern}.
   *
   * @throws IllegalArgumentException saying what is wrong with it
   */
  public static GoPattern compile(String goPattern) {
    List<String> names = new ArrayList<>();
    String java = translate(goPattern, names);
    try {
      Pattern compiled = Pattern.compile(java, Pattern.UNIX_LINES);
      return new GoPattern(compiled, Collections.unmodifiableList(names));
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException(e.getDescription() + " near index " + e.getIndex(), e);
    }
  }

  public Pattern pattern() {
    return pattern;
  }

  /** The name of each capture group in order; null for a group without a name. */
  public List<String> groupNames() {
    return groupNames;
  }

  private static String translate(String go, List<String> names) {
    StringBuilder out = new StringBuilder(go.length() + 16);
    boolean multiLine = MULTI_LINE_FLAG.matcher(go).find();
    int i = 0;
    int n = go.length();
    while (i < n) {
      char c = go.charAt(i);
      if (c == '\\') {
        i = escape(go, i, out);
      } else if (c == '[') {
        i = characterClass(go, i, out);
      } else if (c == '(') {
        i = group(go, i, out, names);
      } else if (c == '$' && !multiLine) {
        out.append("\\z");
        i++;
      } else if ((c == '+' || c == '?' || c == '*') && i + 1 < n) {
        out.append(c);
        i++;
        if (go.charAt(i) == '+') {
          throw new IllegalArgumentException(
              "invalid nested repetition operator: `" + c + "+` near index " + i);
        }
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** Copies the escape at {@code i}; returns the index after it. */
  private static int escape(String go, int i, StringBuilder out) {
    if (i + 1 >= go.length()) {
      throw new IllegalArgumentException("trailing backslash at end of expression");
    }
    char next = go.charAt(i + 1);
    if (next >= '1' && next <= '9') {
      throw new IllegalArgumentException(
          "back-references are not supported (Go's RE2 syntax): \\" + next);
    }
    if (next == 'v') {
      out.append("\\x0B");
    } else if (next == 'Q') {
      int end = go.indexOf("\\E", i + 2);
      int stop = end < 0 ? go.length() : end + 2;
      out.append(go, i, stop);
      if (end < 0) {
        out.append("\\E");
      }
      return stop;
    } else {
      out.append('\\').append(next);
    }
    return i + 2;
  }

  /** Copies the character class at {@code i} in Java's syntax; returns the index after it. */
  private static int characterClass(String go, int i, StringBuilder out) {
    int p = i + 1;
    out.append('[');
    if (p < go.length() && go.charAt(p) == '^') {
      out.append('^');
      p++;
    }
    // A ']' first in the class is literal.
    if (p < go.length() && go.charAt(p) == ']') {
      out.append("\\]");
      p++;
    }
    while (p < go.length()) {
      char c = go.charAt(p);
      if (c == ']') {
        out.append(']');
        return p + 1;
      }
      if (c == '[' && go.startsWith("[:", p)) {
        int end = go.indexOf(":]", p + 2);
        if (end < 0) {
          throw new IllegalArgumentException("missing closing ]: " + go.substring(i));
        }
        String name = go.substring(p + 2, end);
        boolean negated = name.startsWith("^");
        String java = POSIX_CLASSES.get(negated ? name.substring(1) : name);
        if (java == null) {
          throw new IllegalArgumentException("invalid character class range: [:" + name + ":]");
        }
        if (negated) {
          java = java.equals("\\w") ? "\\W" : "\\P" + java.substring(2);
        }
        out.append(java);
        p = end + 2;
      } else if (c == '\\') {
        p = escape(go, p, out);
      } else if (c == '[') {
        out.append("\\[");
        p++;
      } else if (c == '&') {
        out.append("\\&");
        p++;
      } else {
        out.append(c);
        p++;
      }
    }
    throw new IllegalArgumentException("missing closing ]: " + go.substring(i));
  }

  /** Copies the group opening at {@code i}; returns the index after the opening. */
  private static int group(String go, int i, StringBuilder out, List<String> names) {
    if (!go.startsWith("(?", i)) {
      names.add(null);
      out.append('(');
      return i + 1;
    }
    int nameStart;
    if (go.startsWith("(?P<", i)) {
      nameStart = i + 4;
    } else if (go.startsWith("(?<", i) && !go.startsWith("(?<=", i) && !go.startsWith("(?<!", i)) {
      nameStart = i + 3;
    } else {
      int p = i + 2;
      while (p < go.length() && (Character.isLetter(go.charAt(p)) || go.charAt(p) == '-')) {
        char flag = go.charAt(p);
        if (flag != 'i' && flag != 'm' && flag != 's' && flag != '-') {
          throw new IllegalArgumentException(
              "invalid or unsupported Perl syntax: `" + go.substring(i, p + 1) + "`");
        }
        p++;
      }
      if (p < go.length() && (go.charAt(p) == ':' || go.charAt(p) == ')')) {
        out.append(go, i, p + 1);
        return p + 1;
      }
      throw new IllegalArgumentException(
          "invalid or unsupported Perl syntax: `"
              + go.substring(i, Math.min(go.length(), p + 1))
              + "`");
    }
    int end = go.indexOf('>', nameStart);
    String name = end < 0 ? "" : go.substring(nameStart, end);
    if (end < 0 || name.isEmpty() || !name.chars().allMatch(GoPattern::isWordChar)) {
      throw new IllegalArgumentException(
          "invalid named capture: `" + go.substring(i, end < 0 ? go.length() : end + 1) + "`");
    }
    if (names.contains(name)) {
      throw new IllegalArgumentException("duplicate capture group name: `" + name + "`");
    }
    names.add(name);
    out.append('(');
    return end + 1;
  }

  private static boolean isWordChar(int c) {
    return c == '_' || c < 0x80 && Character.isLetterOrDigit(c);
  }
}
