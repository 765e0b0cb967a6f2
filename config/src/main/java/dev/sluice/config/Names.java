package dev.sluice.config;

import java.util.Collection;
import java.util.stream.Collectors;

/** Key names: Java component names to YAML keys, and suggestions for misspelled keys. */
final class Names {
  private Names() {}

  /**
   * The snake_case form of a camelCase name: {@code sendBatchMaxSize} is {@code
   * send_batch_max_size}, {@code http2PingTimeout} is {@code http2_ping_timeout}, and a run of
   * capitals is one word ({@code tlsCAFile} is {@code tls_ca_file}). One trailing underscore is
   * dropped, for keys that are Java keywords: {@code static_} is {@code static}.
   */
  static String snakeCase(String name) {
    int end = name.length() > 1 && name.endsWith("_") ? name.length() - 1 : name.length();
    StringBuilder sb = new StringBuilder(end + 4);
    for (int i = 0; i < end; i++) {
      char c = name.charAt(i);
      if (Character.isUpperCase(c)) {
        if (i > 0) {
          char prev = name.charAt(i - 1);
          boolean nextLower = i + 1 < name.length() && Character.isLowerCase(name.charAt(i + 1));
          if (!Character.isUpperCase(prev) || nextLower) {
            sb.append('_');
          }
        }
        sb.append(Character.toLowerCase(c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  /** The one of {@code candidates} closest to {@code key}, if close enough to be a misspelling. */
  static String suggest(String key, Collection<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int d = distance(key, candidate);
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    return best != null && bestDistance <= Math.max(1, Math.min(3, key.length() / 3)) ? best : null;
  }

  /** {@code unknown key "tiemout" (did you mean "timeout"?); valid keys: a, b, c}. */
  static String unknownKey(String what, String key, Collection<String> valid) {
    StringBuilder sb =
        new StringBuilder("unknown ").append(what).append(' ').append(ConfigNode.quote(key));
    String suggestion = suggest(key, valid);
    if (suggestion != null) {
      sb.append(" (did you mean ").append(ConfigNode.quote(suggestion)).append("?)");
    }
    if (valid.isEmpty()) {
      return sb.append("; this section takes no keys").toString();
    }
    return sb.append("; valid ")
        .append(what)
        .append('s')
        .append(": ")
        .append(valid.stream().collect(Collectors.joining(", ")))
        .toString();
  }

  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        current[j] =
            Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
