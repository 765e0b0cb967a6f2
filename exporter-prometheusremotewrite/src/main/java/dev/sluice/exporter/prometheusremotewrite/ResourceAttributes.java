package dev.sluice.exporter.prometheusremotewrite;

import java.util.List;

/**
 * Which resource attributes become labels of every series of their resource, as the Collector's
 * {@code resource_to_telemetry_conversion} and {@code resource_constant_labels} decide: none, all,
 * all but the service attributes ({@code service.name}, {@code service.namespace}, {@code
 * service.instance.id}, which {@code job} and {@code instance} carry), or those matching {@code
 * included} and not {@code excluded} (exact names, or globs with {@code *} and {@code ?}; with only
 * {@code excluded}, every other attribute).
 */
record ResourceAttributes(Mode mode, List<String> included, List<String> excluded) {
  enum Mode {
    NONE,
    ALL,
    ALL_BUT_SERVICE,
    PATTERNS
  }

  static final ResourceAttributes NONE = new ResourceAttributes(Mode.NONE, List.of(), List.of());

  boolean any() {
    return mode != Mode.NONE;
  }

  boolean matches(String key) {
    switch (mode) {
      case NONE:
        return false;
      case ALL:
        return true;
      case ALL_BUT_SERVICE:
        return !isService(key);
      default:
        for (String pattern : excluded) {
          if (glob(pattern, key)) {
            return false;
          }
        }
        if (included.isEmpty()) {
          return !excluded.isEmpty();
        }
        for (String pattern : included) {
          if (glob(pattern, key)) {
            return true;
          }
        }
        return false;
    }
  }

  static boolean isService(String key) {
    return key.equals("service.name")
        || key.equals("service.namespace")
        || key.equals("service.instance.id");
  }

  /** Whether {@code text} matches {@code pattern}, where {@code *} is any run and {@code ?} one. */
  static boolean glob(String pattern, String text) {
    int p = 0;
    int t = 0;
    int star = -1;
    int resume = 0;
    while (t < text.length()) {
      if (p < pattern.length()
          && (pattern.charAt(p) == '?' || pattern.charAt(p) == text.charAt(t))) {
        p++;
        t++;
      } else if (p < pattern.length() && pattern.charAt(p) == '*') {
        star = p++;
        resume = t;
      } else if (star >= 0) {
        p = star + 1;
        t = ++resume;
      } else {
        return false;
      }
    }
    while (p < pattern.length() && pattern.charAt(p) == '*') {
      p++;
    }
    return p == pattern.length();
  }
}
