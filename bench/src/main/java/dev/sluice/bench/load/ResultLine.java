package dev.sluice.bench.load;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The last line of {@code bench/run-scenario.sh}:
 *
 * <pre>
 * RESULT scenario=NAME items_per_s=N cpu_ns_per_item=N p50_ms=N p99_ms=N rss_mib=N dropped=N gen_cpu_pct=N
 * </pre>
 *
 * <p>{@code items_per_s}, {@code cpu_ns_per_item}, {@code rss_mib} and {@code dropped} are
 * integers; {@code p50_ms} and {@code p99_ms} have three decimals, {@code gen_cpu_pct} one. Where a
 * value does not apply (no items in an idle run) it is 0.
 *
 * @param itemsPerSecond items the collector accepted per second of the measured window
 * @param cpuNanosPerItem the collector's CPU time (user + system) in the window per item
 * @param p50Millis median latency of a request, milliseconds
 * @param p99Millis 99th percentile latency of a request, milliseconds
 * @param rssMib the collector's peak resident set size (VmHWM), MiB
 * @param dropped items accepted from the generator but not delivered
 * @param generatorCpuPercent the generator's own CPU in the window, percent of one core
 */
public record ResultLine(
    String scenario,
    double itemsPerSecond,
    double cpuNanosPerItem,
    double p50Millis,
    double p99Millis,
    double rssMib,
    long dropped,
    double generatorCpuPercent) {

  public ResultLine {
    if (scenario.isEmpty() || scenario.chars().anyMatch(c -> c <= ' ' || c == '=')) {
      throw new IllegalArgumentException("a scenario name without spaces or '=': " + scenario);
    }
  }

  public String format() {
    return String.format(
        Locale.ROOT,
        "RESULT scenario=%s items_per_s=%d cpu_ns_per_item=%d p50_ms=%.3f p99_ms=%.3f rss_mib=%d"
            + " dropped=%d gen_cpu_pct=%.1f",
        scenario,
        Math.round(finite(itemsPerSecond)),
        Math.round(finite(cpuNanosPerItem)),
        finite(p50Millis),
        finite(p99Millis),
        Math.round(finite(rssMib)),
        dropped,
        finite(generatorCpuPercent));
  }

  private static double finite(double value) {
    return Double.isFinite(value) ? value : 0;
  }

  @Override
  public String toString() {
    return format();
  }

  /** The {@code key=value} pairs of a RESULT line, in order. */
  public static Map<String, String> parse(String line) {
    if (!line.startsWith("RESULT ")) {
      throw new IllegalArgumentException("not a RESULT line: " + line);
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (String pair : line.substring(7).trim().split(" +")) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("not key=value: " + pair);
      }
      fields.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return fields;
  }
}
