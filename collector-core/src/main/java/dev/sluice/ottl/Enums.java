package dev.sluice.ottl;

import dev.sluice.pdata.internal.OtlpFields;
import dev.sluice.pdata.internal.OtlpSchema;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The enum symbols of OTTL, each an integer as the OTLP enum's number. */
final class Enums {
  static final Map<String, Long> SYMBOLS = symbols();

  /** The families of symbols, for messages. */
  static final String FAMILIES =
      "SPAN_KIND_*, STATUS_CODE_*, SEVERITY_NUMBER_*, METRIC_DATA_TYPE_*, AGGREGATION_TEMPORALITY_*";

  private Enums() {}

  private static Map<String, Long> symbols() {
    Map<String, Long> m = new LinkedHashMap<>();
    // OTLP's enums, each value by its name in opentelemetry-proto.
    putByNumber(m, OtlpSchema.SPAN.field(OtlpFields.Span.KIND).enumNames());
    putByNumber(m, OtlpSchema.STATUS.field(OtlpFields.Status.CODE).enumNames());
    putByNumber(m, OtlpSchema.LOG_RECORD.field(OtlpFields.LogRecord.SEVERITY_NUMBER).enumNames());
    // The Collector's metric types, which are not an OTLP enum.
    String[] types = {"NONE", "GAUGE", "SUM", "HISTOGRAM", "EXPONENTIAL_HISTOGRAM", "SUMMARY"};
    for (int i = 0; i < types.length; i++) {
      m.put("METRIC_DATA_TYPE_" + types[i], (long) i);
    }
    putByNumber(m, OtlpSchema.SUM.field(OtlpFields.Sum.AGGREGATION_TEMPORALITY).enumNames());
    return Collections.unmodifiableMap(m);
  }

  /** Puts each of an enum's names with its number, its index in the schema's list of names. */
  private static void putByNumber(Map<String, Long> m, List<String> names) {
    for (int i = 0; i < names.size(); i++) {
      m.put(names.get(i), (long) i);
    }
  }
}
