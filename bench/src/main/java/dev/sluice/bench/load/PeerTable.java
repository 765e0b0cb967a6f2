package dev.sluice.bench.load;

import dev.sluice.bench.load.ReportCommand.Row;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's side-by-side section: for every scenario that another collector ran, Sluice's row
 * and each peer's row, measured one after another by the same {@code bench/report.sh} run, with the
 * versions, commit, machine and command that made them.
 */
final class PeerTable {
  /** The peers in the order the section lists them, after Sluice. */
  static final List<String> PEERS = List.of("otelcol", "rotel");

  private static final String SLUICE = "sluice";

  private PeerTable() {}

  /**
   * The section, or an empty string when no peer ran and none was reported unavailable.
   *
   * @param sluice Sluice's rows, in report order
   * @param peers the peers' rows, in report order
   * @param unavailable one line per peer that could not run, {@code "NAME: why"}
   */
  static String markdown(List<Row> sluice, List<Row> peers, List<String> unavailable) {
    if (peers.isEmpty() && unavailable.isEmpty()) {
      return "";
    }
    StringBuilder md = new StringBuilder("## Sluice and the other collectors\n\n");
    md.append(
        "Each peer ran right after Sluice in the same `bench/report.sh` run, as the system under"
            + " test on core 0, under the same generator and sink on core 1, with the same"
            + " payloads and the same measurement (`/proc` CPU over the window, `VmHWM`).\n\n");
    List<Row> ordered = sideBySide(sluice, peers);
    if (!ordered.isEmpty()) {
      md.append(
          "| scenario | collector | items/s | CPU ns/item | CPU % of one core | p50 ms | p99 ms |"
              + " peak RSS MiB | delivered | generator CPU % | sink CPU % | notes |\n");
      md.append("|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|\n");
      for (Row row : ordered) {
        appendRow(md, row);
      }
      md.append('\n');
      appendVersions(md, ordered);
    }
    for (String line : unavailable) {
      md.append("Not run: ").append(line).append(".\n\n");
    }
    md.append(
        "Generator check: in a closed loop, items/s is the collector's limit only while the"
            + " collector's core is busy (CPU % near 100) and the generator's core is not"
            + " (generator + sink CPU well under 100 %); the notes say where either does not"
            + " hold. Compare each peer's generator CPU with Sluice's in the same scenario: the"
            + " same load costs the generator about the same per request.\n\n");
    return md.toString();
  }

  /** Per scenario (in the order Sluice's rows come, then the peers' own), Sluice then peers. */
  static List<Row> sideBySide(List<Row> sluice, List<Row> peers) {
    Map<String, List<Row>> byScenario = new LinkedHashMap<>();
    for (Row row : peers) {
      byScenario.computeIfAbsent(row.name(), name -> new ArrayList<>()).add(row);
    }
    List<Row> ordered = new ArrayList<>();
    for (Row row : sluice) {
      List<Row> theirs = byScenario.remove(row.name());
      if (theirs != null) {
        ordered.add(row);
        ordered.addAll(byPeer(theirs));
      }
    }
    byScenario.values().forEach(theirs -> ordered.addAll(byPeer(theirs)));
    return ordered;
  }

  private static List<Row> byPeer(List<Row> rows) {
    List<Row> sorted = new ArrayList<>(rows);
    sorted.sort((a, b) -> Integer.compare(rank(a.collector()), rank(b.collector())));
    return sorted;
  }

  private static int rank(String collector) {
    int index = PEERS.indexOf(collector);
    return index < 0 ? PEERS.size() : index;
  }

  private static void appendRow(StringBuilder md, Row row) {
    double items = row.number("items_per_s");
    boolean hasItems = items > 0;
    md.append("| `")
        .append(row.name())
        .append("` | ")
        .append(row.collector().equals(SLUICE) ? "**Sluice**" : row.collector())
        .append(" | ")
        .append(hasItems ? String.format(Locale.ROOT, "%,.0f", items) : "–")
        .append(" | ")
        .append(hasItems ? String.format(Locale.ROOT, "%,.0f", row.number("cpu_ns_per_item")) : "–")
        .append(" | ")
        .append(String.format(Locale.ROOT, "%.1f", row.number("collector_cpu_pct")))
        .append(" | ")
        .append(hasItems ? String.format(Locale.ROOT, "%.2f", row.number("p50_ms")) : "–")
        .append(" | ")
        .append(hasItems ? String.format(Locale.ROOT, "%.2f", row.number("p99_ms")) : "–")
        .append(" | ")
        .append(String.format(Locale.ROOT, "%.0f", row.number("rss_mib")))
        .append(" | ")
        .append(delivered(row))
        .append(" | ")
        .append(String.format(Locale.ROOT, "%.0f", row.number("gen_cpu_pct")))
        .append(" | ")
        .append(
            row.json().has("sink")
                ? String.format(Locale.ROOT, "%.0f", row.number("sink_cpu_pct"))
                : "–")
        .append(" | ")
        .append(ReportCommand.notes(row))
        .append(" |\n");
  }

  /** What reached the end of the pipeline, and who counted it. */
  static String delivered(Row row) {
    String source = row.json().path("delivery").path("source").asText("");
    long accepted = row.json().path("totals").path("items_accepted").asLong();
    if (source.isEmpty()) {
      return accepted == 0 ? "–" : "not measured";
    }
    long delivered = row.json().path("delivery").path("items_delivered").asLong(-1);
    String counter = source.startsWith("sink:") ? "sink" : "own metrics";
    if (delivered < 0) {
      return "unread (" + counter + ")";
    }
    if (delivered >= accepted) {
      // More than accepted: retried exports the sink counted twice (ReportCommand.notes).
      return "all (" + counter + ")";
    }
    return String.format(Locale.ROOT, "%,d of %,d (%s)", delivered, accepted, counter);
  }

  /** Versions, commit, machine and command: once for what all rows share, else per row. */
  private static void appendVersions(StringBuilder md, List<Row> rows) {
    Map<String, String> versions = new LinkedHashMap<>();
    for (Row row : rows) {
      String version = row.meta("collector_version");
      versions.putIfAbsent(row.collector(), version.isEmpty() ? "version not recorded" : version);
    }
    md.append("Versions:");
    String separator = " ";
    for (Map.Entry<String, String> entry : versions.entrySet()) {
      md.append(separator).append(entry.getKey()).append(' ').append(entry.getValue());
      separator = "; ";
    }
    md.append(". Commit ")
        .append(shared(rows, "commit"))
        .append(". Machine: ")
        .append(shared(rows, "cpu_model"))
        .append(", ")
        .append(shared(rows, "nproc"))
        .append(" cores, kernel ")
        .append(shared(rows, "kernel"))
        .append(". Pinned: ")
        .append(shared(rows, "pinned"))
        .append(".\n\n");
    List<String> reportCommands = distinct(rows, "report_command");
    if (reportCommands.size() == 1 && !reportCommands.get(0).isEmpty()) {
      md.append("Command: `")
          .append(reportCommands.get(0))
          .append("`, which runs `bench/run-scenario.sh SCENARIO --collector NAME` for each row.");
    } else {
      md.append("Commands:");
      separator = " ";
      for (Row row : rows) {
        md.append(separator).append('`').append(row.meta("command")).append('`');
        separator = "; ";
      }
      md.append('.');
    }
    md.append(" Warm-up and window in seconds, and the load average (1, 5, 15 min) as each run")
        .append(" started:");
    separator = " ";
    for (Row row : rows) {
      md.append(separator)
          .append('`')
          .append(row.name())
          .append("` ")
          .append(row.collector())
          .append(' ')
          .append(row.json().path("generator").path("warmup_s").asText("–"))
          .append(" + ")
          .append(row.json().path("generator").path("duration_s").asText("–"))
          .append(" s, load ")
          .append(row.meta("loadavg_start"));
      separator = "; ";
    }
    md.append(".\n\n");
  }

  /** The value every row records for {@code key}, or all the distinct ones joined by "; ". */
  private static String shared(List<Row> rows, String key) {
    return String.join("; ", distinct(rows, key));
  }

  private static List<String> distinct(List<Row> rows, String key) {
    List<String> values = new ArrayList<>();
    for (Row row : rows) {
      String value = row.meta(key);
      if (!values.contains(value)) {
        values.add(value);
      }
    }
    return values;
  }
}
