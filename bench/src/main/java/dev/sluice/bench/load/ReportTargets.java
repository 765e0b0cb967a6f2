package dev.sluice.bench.load;

import dev.sluice.bench.load.ReportCommand.Row;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's "Targets" table: each of the project's performance targets, the value this run
 * measured, and whether it is met. A target whose scenarios did not run is left out; one that
 * compares with another collector needs that collector's row from the same run.
 */
final class ReportTargets {
  private static final double BLACKHOLE_NS = 330;
  private static final double FLOOR_RATIO = 1.5;
  private static final double GZIP_RATIO = 1.25;
  private static final double PROCESSORS_RATIO = 1.5;
  private static final double DURABLE_SHARE = 0.8;
  private static final double FIXED_CPU_PCT = 3;
  private static final double SIDECAR_RSS_MIB = 64;

  private ReportTargets() {}

  /**
   * The table for Sluice's rows by scenario name, the peers' rows of the same run, and the
   * GzipBenchmark figures (ns per span by method).
   */
  static String markdown(Map<String, Row> byName, List<Row> peers, Map<String, Double> gzip) {
    StringBuilder md = new StringBuilder();
    md.append("## Targets\n\n");
    md.append("| target | measured | met |\n|---|---|---|\n");
    Row floor = byName.get("grpc-floor");
    Row blackhole = byName.get("traces-blackhole");
    if (blackhole != null) {
      double cpu = blackhole.number("cpu_ns_per_item");
      target(md, "`traces-blackhole` CPU per span ≤ 330 ns", fmt(cpu, "ns"), cpu <= BLACKHOLE_NS);
      if (floor != null && floor.number("cpu_ns_per_item") > 0) {
        double r = cpu / floor.number("cpu_ns_per_item");
        target(
            md, "`traces-blackhole` CPU per span ≤ 1.5 × `grpc-floor`", times(r), r <= FLOOR_RATIO);
      }
    }
    Row processors = byName.get("traces-processors");
    if (processors != null && blackhole != null && blackhole.number("cpu_ns_per_item") > 0) {
      double r = processors.number("cpu_ns_per_item") / blackhole.number("cpu_ns_per_item");
      target(
          md,
          "`traces-processors` CPU per span ≤ 1.5 × `traces-blackhole`",
          times(r),
          r <= PROCESSORS_RATIO);
    }
    Row otlp = byName.get("traces-otlp");
    Double gzipNs = gzip.get("gzip");
    if (otlp != null && gzipNs != null) {
      double r = otlp.number("cpu_ns_per_item") / gzipNs;
      target(
          md,
          "`traces-otlp` CPU per span ≤ 1.25 × gzip's own cost per span (JMH `GzipBenchmark.gzip`: "
              + fmt(gzipNs, "ns")
              + ")",
          times(r),
          r <= GZIP_RATIO);
    } else if (otlp != null) {
      md.append(
          "| `traces-otlp` CPU per span ≤ 1.25 × gzip's own cost | no GzipBenchmark results"
              + " (run `bench/report.sh` without `--skip-jmh`) | – |\n");
    }
    Row none = byName.get("traces-otlp-none");
    Row durable = byName.get("traces-otlp-durable");
    if (none != null && durable != null && none.number("items_per_s") > 0) {
      double share = durable.number("items_per_s") / none.number("items_per_s");
      target(
          md,
          "`traces-otlp-durable` throughput ≥ 80 % of `traces-otlp-none`'s",
          String.format(Locale.ROOT, "%.0f %%", share * 100),
          share >= DURABLE_SHARE);
    }
    Row fixed = byName.get("traces-10k-fixed");
    if (fixed != null) {
      double pct = fixed.number("collector_cpu_pct");
      target(md, "`traces-10k-fixed` ≤ 3 % of one core", fmt(pct, "%"), pct <= FIXED_CPU_PCT);
    }
    Row sidecar = byName.get("traces-10k-sidecar");
    if (sidecar != null) {
      double rss = sidecar.number("rss_mib");
      target(md, "`traces-10k-sidecar` ≤ 64 MiB peak RSS", fmt(rss, "MiB"), rss <= SIDECAR_RSS_MIB);
      Row rotel = peer(peers, "traces-10k-fixed", "rotel");
      if (rotel != null) {
        double ours = sidecar.number("collector_cpu_pct");
        double theirs = rotel.number("collector_cpu_pct");
        target(
            md,
            "`traces-10k-sidecar` CPU ≤ rotel's in `traces-10k-fixed` (" + fmt(theirs, "%") + ")",
            fmt(ours, "%"),
            ours <= theirs);
      }
    }
    Row naive = byName.get("naive");
    if (naive != null && blackhole != null && blackhole.number("cpu_ns_per_item") > 0) {
      double r = naive.number("cpu_ns_per_item") / blackhole.number("cpu_ns_per_item");
      md.append("| `naive` / `traces-blackhole` CPU per span (stated) | ")
          .append(times(r))
          .append(" | – |\n");
    }
    return md.toString();
  }

  private static Row peer(List<Row> peers, String scenario, String collector) {
    for (Row row : peers) {
      if (row.name().equals(scenario) && row.collector().equals(collector)) {
        return row;
      }
    }
    return null;
  }

  private static void target(StringBuilder md, String what, String measured, boolean met) {
    md.append("| ")
        .append(what)
        .append(" | ")
        .append(measured)
        .append(" | ")
        .append(met ? "yes" : "no")
        .append(" |\n");
  }

  private static String times(double ratio) {
    return String.format(Locale.ROOT, "%.2f ×", ratio);
  }

  private static String fmt(double value, String unit) {
    return String.format(Locale.ROOT, "%.1f %s", value, unit);
  }
}
