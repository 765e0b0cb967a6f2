package dev.sluice.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice-bench report}: reads {@code bench/results/*.json} (and the {@code GzipBenchmark}
 * JMH results if present) and writes {@code REPORT.md} with a table, the other collectors' rows
 * beside Sluice's ({@link PeerTable}), the project's performance targets with the measured values,
 * the published anchors, and an SVG chart.
 */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = "Writes REPORT.md and an SVG chart from the scenario results.")
final class ReportCommand implements Callable<Integer> {
  @Option(
      names = "--results",
      defaultValue = "bench/results",
      description = "Directory of the scenario JSON files (default: ${DEFAULT-VALUE}).")
  Path results;

  @Option(
      names = "--out",
      defaultValue = "bench/results/REPORT.md",
      description = "The report (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(
      names = "--svg",
      defaultValue = "bench/results/report.svg",
      description = "The chart (default: ${DEFAULT-VALUE}).")
  Path svg;

  @Option(
      names = "--jmh",
      defaultValue = "bench/results/gzip-jmh.json",
      description = "GzipBenchmark results as JMH JSON, if present (default: ${DEFAULT-VALUE}).")
  Path jmh;

  @Option(
      names = "--scenarios",
      defaultValue = StandardScenarios.DEFAULT_PATH,
      description =
          "The standard set, one scenario a line, listed first and in this order (default:"
              + " ${DEFAULT-VALUE}).")
  Path scenarios;

  @Option(
      names = "--peers-unavailable",
      defaultValue = "bench/results/peers-unavailable.txt",
      description =
          "Peers that could not run, one \"NAME: why\" a line, if present (default:"
              + " ${DEFAULT-VALUE}).")
  Path peersUnavailable;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One scenario's result. */
  record Row(String name, JsonNode json) {
    /** The system under test: sluice, or the peer named by {@code --collector}. */
    String collector() {
      String collector = meta("collector");
      return collector.isEmpty() ? "sluice" : collector;
    }

    double number(String field) {
      return json.path(field).asDouble(0);
    }

    String meta(String key) {
      return json.path("meta").path(key).asText("");
    }

    boolean closedLoop() {
      return json.path("generator").path("mode").asText("").equals("closed");
    }
  }

  @Override
  public Integer call() throws IOException {
    List<Row> all = loadAll();
    List<Row> rows = all.stream().filter(row -> row.collector().equals("sluice")).toList();
    List<Row> peers = all.stream().filter(row -> !row.collector().equals("sluice")).toList();
    if (rows.isEmpty()) {
      System.err.println("no results in " + results);
      return 1;
    }
    Map<String, Double> gzip = gzipNanosPerSpan();
    String chartName = svg.getFileName().toString();
    List<String> unavailable =
        Files.isRegularFile(peersUnavailable)
            ? StandardScenarios.parse(Files.readAllLines(peersUnavailable))
            : List.of();
    String markdown =
        markdown(
            rows,
            peers,
            PeerTable.markdown(rows, peers, unavailable),
            gzip,
            relativeLink(out, svg, chartName));
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, markdown, StandardCharsets.UTF_8);
    Files.writeString(svg, Chart.svg(rows), StandardCharsets.UTF_8);
    System.err.println("wrote " + out + " and " + svg);
    return 0;
  }

  private static String relativeLink(Path report, Path chart, String fallback) {
    Path base = report.toAbsolutePath().getParent();
    try {
      return base.relativize(chart.toAbsolutePath()).toString();
    } catch (IllegalArgumentException e) {
      return fallback;
    }
  }

  /** Sluice's rows: the standard set first, in its order, then the rest by name. */
  List<Row> load() throws IOException {
    return loadAll().stream().filter(row -> row.collector().equals("sluice")).toList();
  }

  /**
   * Every result, Sluice's and the peers' ({@code NAME.json}, {@code NAME.PEER.json}): the standard
   * set first, in its order, then the rest by name; within a scenario, by file name.
   */
  List<Row> loadAll() throws IOException {
    // By file name: a scenario's peer results (NAME.PEER.json) follow Sluice's (NAME.json).
    Map<String, Row> byFile = new TreeMap<>();
    if (!Files.isDirectory(results)) {
      return List.of();
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(results, "*.json")) {
      for (Path file : files) {
        JsonNode json;
        try {
          json = JSON.readTree(file.toFile());
        } catch (IOException e) {
          continue;
        }
        if (json.isObject() && json.has("result_line") && json.has("scenario")) {
          byFile.put(file.getFileName().toString(), new Row(json.get("scenario").asText(), json));
        }
      }
    }
    List<Row> rows = new ArrayList<>();
    for (String name : StandardScenarios.read(scenarios)) {
      Iterator<Row> rest = byFile.values().iterator();
      while (rest.hasNext()) {
        Row row = rest.next();
        if (row.name().equals(name)) {
          rows.add(row);
          rest.remove();
        }
      }
    }
    List<Row> others = new ArrayList<>(byFile.values());
    others.sort(Comparator.comparing(Row::name));
    rows.addAll(others);
    return rows;
  }

  /** GzipBenchmark scores in ns per span, by method name; empty when there is no file. */
  Map<String, Double> gzipNanosPerSpan() {
    Map<String, Double> scores = new LinkedHashMap<>();
    if (!Files.isRegularFile(jmh)) {
      return scores;
    }
    try {
      for (JsonNode benchmark : JSON.readTree(jmh.toFile())) {
        String name = benchmark.path("benchmark").asText();
        if (!name.contains("GzipBenchmark")) {
          continue;
        }
        String unit = benchmark.path("primaryMetric").path("scoreUnit").asText();
        double score = benchmark.path("primaryMetric").path("score").asDouble();
        if (unit.equals("us/op")) {
          score *= 1000;
        }
        scores.put(name.substring(name.lastIndexOf('.') + 1), score);
      }
    } catch (IOException e) {
      System.err.println("warning: cannot read " + jmh + ": " + e.getMessage());
    }
    return scores;
  }

  static String markdown(List<Row> rows, Map<String, Double> gzip, String chart) {
    return markdown(rows, List.of(), "", gzip, chart);
  }

  /**
   * The report of Sluice's {@code rows}, with {@code peerSection} after the chart; the peers' rows
   * of the same run feed the targets that compare with them.
   */
  static String markdown(
      List<Row> rows, List<Row> peers, String peerSection, Map<String, Double> gzip, String chart) {
    Map<String, Row> byName = new LinkedHashMap<>();
    rows.forEach(row -> byName.put(row.name(), row));
    Row floor = byName.get("grpc-floor");
    StringBuilder md = new StringBuilder();
    md.append("# Sluice benchmark report\n\n");
    Row first = rows.get(0);
    md.append("Generated by `bench/report.sh` from `bench/results/*.json`");
    String when = first.json().path("started").asText("");
    if (!when.isEmpty()) {
      md.append(", runs started ").append(when.substring(0, Math.min(16, when.length())));
    }
    md.append(".\n\n");
    md.append("Machine: ")
        .append(orDash(first.meta("cpu_model")))
        .append(", ")
        .append(orDash(first.meta("nproc")))
        .append(" cores, ")
        .append(orDash(first.meta("kernel")))
        .append(", Java ")
        .append(orDash(first.meta("java_version")))
        .append(". Collector pinned to core 0, generator and sink to core 1: ")
        .append(orDash(first.meta("pinned")))
        .append(". Collector JVM flags: `")
        .append(orDash(first.meta("collector_java_opts")))
        .append("`. Commit ")
        .append(orDash(first.meta("commit")))
        .append(".\n\n");

    md.append(
        "| scenario | items/s | × floor (items/s) | collector CPU ns/item | × floor (CPU/item) |"
            + " collector CPU % | p50 ms | p99 ms | peak RSS MiB | dropped | generator CPU % |"
            + " sink CPU % | notes |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (Row row : rows) {
      double items = row.number("items_per_s");
      double cpu = row.number("cpu_ns_per_item");
      boolean hasItems = items > 0;
      md.append("| `")
          .append(row.name())
          .append("` | ")
          .append(hasItems ? String.format(Locale.ROOT, "%,.0f", items) : "–")
          .append(" | ")
          .append(ratio(items, floor == null ? 0 : floor.number("items_per_s"), row.closedLoop()))
          .append(" | ")
          .append(hasItems ? String.format(Locale.ROOT, "%,.0f", cpu) : "–")
          .append(" | ")
          .append(ratio(cpu, floor == null ? 0 : floor.number("cpu_ns_per_item"), row.closedLoop()))
          .append(" | ")
          .append(String.format(Locale.ROOT, "%.1f", row.number("collector_cpu_pct")))
          .append(" | ")
          .append(hasItems ? String.format(Locale.ROOT, "%.2f", row.number("p50_ms")) : "–")
          .append(" | ")
          .append(hasItems ? String.format(Locale.ROOT, "%.2f", row.number("p99_ms")) : "–")
          .append(" | ")
          .append(String.format(Locale.ROOT, "%.0f", row.number("rss_mib")))
          .append(" | ")
          .append(row.json().path("dropped").asLong())
          .append(" | ")
          .append(String.format(Locale.ROOT, "%.0f", row.number("gen_cpu_pct")))
          .append(" | ")
          .append(
              row.json().has("sink")
                  ? String.format(Locale.ROOT, "%.0f", row.number("sink_cpu_pct"))
                  : "–")
          .append(" | ")
          .append(notes(row))
          .append(" |\n");
    }
    md.append(
        "\nitems/s: items the collector accepted per second of the measured window. CPU: the"
            + " collector's user + system time over the window from `/proc/PID/stat`, all its"
            + " threads (JIT and GC included), per item and as % of one core. Latency: per"
            + " request, from send (closed loop) or from the scheduled send time (fixed rate)"
            + " to the answer. RSS: peak (`VmHWM`) over the whole run. dropped: items accepted"
            + " minus items delivered after a drain wait. Generator and sink CPU: % of their"
            + " shared core over the window.\n\n");
    md.append(
        "Each window follows a warm-up under the same load, long enough for the JIT compilers"
            + " to be done with the hot code at the scenario's request rate: the figures are"
            + " those of a collector that has been running for a while, not of its first"
            + " minute. Warm-up in seconds:");
    perRow(
        md,
        rows,
        row -> {
          JsonNode warmup = row.json().path("generator").path("warmup_s");
          return warmup.isNumber() ? warmup.asText() : "–";
        });
    md.append(".\n\n");
    md.append("Load average (1, 5, 15 min) as each run started:");
    perRow(md, rows, row -> orDash(row.meta("loadavg_start")));
    md.append(
        ". A run's own processes account for up to about 2 on two cores; more means something"
            + " else was running.\n\n");
    md.append("![throughput, ratio to the floor, CPU per item](").append(chart).append(")\n\n");
    md.append(peerSection);

    md.append(ReportTargets.markdown(byName, peers, gzip));
    if (!gzip.isEmpty()) {
      md.append("\nJMH `GzipBenchmark`, compressing the marshaled 1000-span request:");
      gzip.forEach(
          (method, ns) ->
              md.append(String.format(Locale.ROOT, " `%s` %.1f ns per span;", method, ns)));
      md.setLength(md.length() - 1);
      md.append(".\n");
    }

    md.append("\n## Published anchors (other machines, for context only)\n\n");
    md.append(
        "| collector | test | CPU | RSS |\n|---|---|---|---|\n"
            + "| OpenTelemetry Collector | testbed `Trace10kSPS` OTLP | about 6-8 % of one core |"
            + " about 55 MiB on average |\n"
            + "| rotel v0.1.2 | the same testbed | about 5.6 % | about 20 MiB |\n");
    for (String name : List.of("traces-10k-fixed", "traces-10k-sidecar")) {
      Row fixed = byName.get(name);
      if (fixed != null) {
        md.append(
            String.format(
                Locale.ROOT,
                "| Sluice (this run) | `%s` | %.1f %% | %.0f MiB peak |\n",
                name,
                fixed.number("collector_cpu_pct"),
                fixed.number("rss_mib")));
      }
    }
    md.append(
        "\nThe anchors were measured on other hardware with the testbed's own load generator;"
            + " compare orders of magnitude, not digits.\n");
    return md.toString();
  }

  /** Appends {@code `name` value} for each row, separated by semicolons. */
  private static void perRow(StringBuilder md, List<Row> rows, Function<Row, String> value) {
    String separator = "";
    for (Row row : rows) {
      md.append(separator).append(" `").append(row.name()).append("` ").append(value.apply(row));
      separator = ";";
    }
  }

  private static String ratio(double value, double floor, boolean applies) {
    if (!applies || floor <= 0 || value <= 0) {
      return "–";
    }
    return String.format(Locale.ROOT, "%.2f", value / floor);
  }

  /**
   * Steal above which a row is marked: quiet runs of this machine's host measure under 1 %, and
   * runs with several percent came out at a quarter to a half of their usual rate.
   */
  static final double STEAL_NOTE_PERCENT = 3;

  /** Saturation, contention and delivery notes. */
  static String notes(Row row) {
    List<String> notes = new ArrayList<>();
    double gen = row.number("gen_cpu_pct");
    double sink = row.number("sink_cpu_pct");
    if (row.closedLoop() && gen + sink >= 90) {
      notes.add(
          String.format(
              Locale.ROOT,
              "generator core saturated (generator %.0f %% + sink %.0f %%): items/s is a lower"
                  + " bound",
              gen,
              sink));
    }
    double collector = row.number("collector_cpu_pct");
    if (row.closedLoop() && collector < 85) {
      notes.add(
          String.format(
              Locale.ROOT,
              "%s at %.0f %% of its core",
              row.meta("target").equals("floor") ? "floor server" : "collector",
              collector));
    }
    double steal = row.json().path("steal_pct").asDouble(0);
    if (steal >= STEAL_NOTE_PERCENT) {
      notes.add(
          String.format(
              Locale.ROOT,
              "host contended: %.0f %% of the machine's CPU time stolen in the window",
              steal));
    }
    long dropped = row.json().path("dropped").asLong();
    if (dropped > 0) {
      notes.add("items lost or not drained");
    } else if (dropped < 0) {
      // Exports that timed out and were sent again: the sink counts both copies.
      notes.add(
          String.format(Locale.ROOT, "%,d items delivered twice (exports retried)", -dropped));
    }
    long refused = row.json().path("totals").path("items_refused").asLong();
    if (refused > 0) {
      notes.add(String.format(Locale.ROOT, "%,d items refused", refused));
    }
    if (row.json().path("aborted").asBoolean()) {
      notes.add("aborted: " + row.json().path("abort_reason").asText());
    }
    if (!row.meta("generate_override").isBlank()) {
      notes.add("generator arguments overridden: `" + row.meta("generate_override").trim() + "`");
    }
    if (!row.meta("pinned").isEmpty() && !row.meta("pinned").equals("yes")) {
      notes.add("not pinned");
    }
    return String.join("; ", notes);
  }

  private static String orDash(String value) {
    return value.isEmpty() ? "–" : value;
  }

  /**
   * The SVG chart: three panels of horizontal bars, one above the other, over the closed-loop
   * scenarios (fixed-rate and idle runs have no throughput of their own to compare).
   */
  static final class Chart {
    private Chart() {}

    static String svg(List<Row> rows) {
      double floorItems = 0;
      for (Row row : rows) {
        if (row.name().equals("grpc-floor")) {
          floorItems = row.number("items_per_s");
        }
      }
      List<Row> loaded = new ArrayList<>();
      for (Row row : rows) {
        if (row.closedLoop() && row.number("items_per_s") > 0) {
          loaded.add(row);
        }
      }
      double[] items = new double[loaded.size()];
      double[] ratio = new double[loaded.size()];
      double[] cpu = new double[loaded.size()];
      for (int i = 0; i < loaded.size(); i++) {
        Row row = loaded.get(i);
        items[i] = row.number("items_per_s");
        ratio[i] = floorItems > 0 ? items[i] / floorItems : 0;
        cpu[i] = row.number("cpu_ns_per_item");
      }
      List<double[]> values = List.of(items, ratio, cpu);
      String[] titles = {
        "Throughput, items/s",
        floorItems > 0 ? "Throughput ÷ grpc-floor's" : "Throughput ÷ grpc-floor's (no floor run)",
        "Collector CPU per item, ns (lower is better)"
      };
      String[] colors = {"#4e79a7", "#59a14f", "#e15759"};
      String[] formats = {"%,.0f", "%.2f", "%,.0f"};

      int label = 170;
      int barWidth = 420;
      int width = label + barWidth + 100;
      int rowHeight = 22;
      int titleHeight = 30;
      int panelHeight = titleHeight + Math.max(1, loaded.size()) * rowHeight + 16;
      int height = 3 * panelHeight + 30;
      StringBuilder svg = new StringBuilder();
      svg.append(
          String.format(
              Locale.ROOT,
              "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                  + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
                  + "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
              width,
              height,
              width,
              height));
      for (int panel = 0; panel < 3; panel++) {
        int y0 = panel * panelHeight;
        double max = 0;
        for (double v : values.get(panel)) {
          max = Math.max(max, v);
        }
        if (panel == 1) {
          max = Math.max(max, 1.0);
        }
        svg.append(
            String.format(
                Locale.ROOT,
                "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>\n",
                y0 + 20,
                escape(titles[panel])));
        int top = y0 + titleHeight;
        for (int i = 0; i < loaded.size(); i++) {
          int y = top + i * rowHeight;
          double v = values.get(panel)[i];
          int w = max > 0 ? (int) Math.round(v / max * barWidth) : 0;
          svg.append(
              String.format(
                  Locale.ROOT,
                  "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
                  label - 6,
                  y + 14,
                  escape(loaded.get(i).name())));
          svg.append(
              String.format(
                  Locale.ROOT,
                  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
                  label,
                  y + 3,
                  w,
                  rowHeight - 6,
                  colors[panel]));
          svg.append(
              String.format(
                  Locale.ROOT,
                  "<text x=\"%d\" y=\"%d\">%s</text>\n",
                  label + w + 4,
                  y + 14,
                  v > 0 ? String.format(Locale.ROOT, formats[panel], v) : "–"));
        }
        if (panel == 1 && floorItems > 0) {
          int x = label + (int) Math.round(1.0 / max * barWidth);
          svg.append(
              String.format(
                  Locale.ROOT,
                  "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\""
                      + " stroke-dasharray=\"4 3\"/>\n",
                  x,
                  top - 2,
                  x,
                  top + loaded.size() * rowHeight + 2));
        }
      }
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"10\" y=\"%d\" fill=\"#555\">Closed-loop scenarios; see REPORT.md for"
                  + " the generator's CPU, which bounds the throughput it can show.</text>\n",
              height - 10));
      svg.append("</svg>\n");
      return svg.toString();
    }

    private static String escape(String text) {
      return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
  }
}
