package dev.sluice.prometheus;

import java.util.Map;

/**
 * The unit words of metric names: an OTLP unit ({@code ms}, {@code By/s}, {@code {request}}) split
 * at its first {@code /} into a main unit and a "per" unit, each trimmed of white space, each
 * dropped when empty or when it holds a brace, each spelled out when the Collector knows it ({@code
 * ms} -> {@code milliseconds}, {@code /s} -> {@code per_second}) and kept as written otherwise. The
 * unit {@code 1} has no word.
 */
final class Units {
  private static final Map<String, String> MAIN =
      Map.ofEntries(
          // Time
          Map.entry("d", "days"),
          Map.entry("h", "hours"),
          Map.entry("min", "minutes"),
          Map.entry("s", "seconds"),
          Map.entry("ms", "milliseconds"),
          Map.entry("us", "microseconds"),
          Map.entry("ns", "nanoseconds"),
          // Bytes
          Map.entry("By", "bytes"),
          Map.entry("KiBy", "kibibytes"),
          Map.entry("MiBy", "mebibytes"),
          Map.entry("GiBy", "gibibytes"),
          Map.entry("TiBy", "tibibytes"),
          Map.entry("KBy", "kilobytes"),
          Map.entry("MBy", "megabytes"),
          Map.entry("GBy", "gigabytes"),
          Map.entry("TBy", "terabytes"),
          // SI
          Map.entry("m", "meters"),
          Map.entry("V", "volts"),
          Map.entry("A", "amperes"),
          Map.entry("J", "joules"),
          Map.entry("W", "watts"),
          Map.entry("g", "grams"),
          // Others
          Map.entry("Cel", "celsius"),
          Map.entry("Hz", "hertz"),
          Map.entry("1", ""),
          Map.entry("%", "percent"));

  /** "Per" units are singular: {@code /s} is {@code per_second}. */
  private static final Map<String, String> PER =
      Map.of(
          "s", "second",
          "m", "minute",
          "h", "hour",
          "d", "day",
          "w", "week",
          "mo", "month",
          "y", "year");

  private Units() {}

  /** The main unit's word, not yet escaped; empty when there is none. */
  static String main(String unit) {
    int slash = unit.indexOf('/');
    String main = trimSpace(slash < 0 ? unit : unit.substring(0, slash));
    if (main.isEmpty() || hasBrace(main)) {
      return "";
    }
    return MAIN.getOrDefault(main, main);
  }

  /** {@code per_} and the "per" unit's word, not yet escaped; empty when there is none. */
  static String per(String unit) {
    int slash = unit.indexOf('/');
    if (slash < 0) {
      return "";
    }
    String per = trimSpace(unit.substring(slash + 1));
    if (per.isEmpty() || hasBrace(per)) {
      return "";
    }
    return "per_" + PER.getOrDefault(per, per);
  }

  private static boolean hasBrace(String text) {
    return text.indexOf('{') >= 0 || text.indexOf('}') >= 0;
  }

  /** Trims white space as Go's {@code strings.TrimSpace} does (Unicode's White_Space). */
  static String trimSpace(String text) {
    int from = 0;
    int to = text.length();
    while (from < to && isSpace(text.charAt(from))) {
      from++;
    }
    while (to > from && isSpace(text.charAt(to - 1))) {
      to--;
    }
    return text.substring(from, to);
  }

  /** Go's {@code unicode.IsSpace}: Unicode's White_Space property, all in the BMP. */
  static boolean isSpace(char c) {
    return c == ' '
        || (c >= '\t' && c <= '\r')
        || c == 0x85
        || c == 0xA0
        || c == 0x1680
        || (c >= 0x2000 && c <= 0x200A)
        || c == 0x2028
        || c == 0x2029
        || c == 0x202F
        || c == 0x205F
        || c == 0x3000;
  }
}
