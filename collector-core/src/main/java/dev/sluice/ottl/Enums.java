package dev.sluice.ottl;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The enum symbols of OTTL, each an integer as the OTLP enum's number. */
final class Enums {
  private static final String[] SEVERITY_LEVELS = {
    "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"
  };
  private static final int SEVERITIES_PER_LEVEL = 4;

  static final Map<String, Long> SYMBOLS = symbols();

  /** The families of symbols, for messages. */
  static final String FAMILIES =
      "SPAN_KIND_*, STATUS_CODE_*, SEVERITY_NUMBER_*, METRIC_DATA_TYPE_*, AGGREGATION_TEMPORALITY_*";

  private Enums() {}

  private static Map<String, Long> symbols() {
    Map<String, Long> m = new LinkedHashMap<>();
    String[] kinds = {"UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"};
    for (int i = 0; i < kinds.length; i++) {
      m.put("SPAN_KIND_" + kinds[i], (long) i);
    }
    String[] codes = {"UNSET", "OK", "ERROR"};
    for (int i = 0; i < codes.length; i++) {
      m.put("STATUS_CODE_" + codes[i], (long) i);
    }
    m.put("SEVERITY_NUMBER_UNSPECIFIED", 0L);
    for (int level = 0; level < SEVERITY_LEVELS.length; level++) {
      for (int step = 0; step < SEVERITIES_PER_LEVEL; step++) {
        String suffix = step == 0 ? "" : Integer.toString(step + 1);
        m.put(
            "SEVERITY_NUMBER_" + SEVERITY_LEVELS[level] + suffix,
            (long) (level * SEVERITIES_PER_LEVEL + step + 1));
      }
    }
    String[] types = {"NONE", "GAUGE", "SUM", "HISTOGRAM", "EXPONENTIAL_HISTOGRAM", "SUMMARY"};
    for (int i = 0; i < types.length; i++) {
      m.put("METRIC_DATA_TYPE_" + types[i], (long) i);
    }
    String[] temporalities = {"UNSPECIFIED", "DELTA", "CUMULATIVE"};
    for (int i = 0; i < temporalities.length; i++) {
      m.put("AGGREGATION_TEMPORALITY_" + temporalities[i], (long) i);
    }
    return Collections.unmodifiableMap(m);
  }
}
