package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.bench.load.ReportCommand.Row;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportTargetsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Row row(
      String scenario, String collector, double itemsPerSecond, double cpuPct, double rssMib) {
    ObjectNode json = JSON.createObjectNode();
    json.put("scenario", scenario);
    json.put("items_per_s", itemsPerSecond);
    json.put("cpu_ns_per_item", itemsPerSecond > 0 ? 1e9 / itemsPerSecond : 0);
    json.put("collector_cpu_pct", cpuPct);
    json.put("rss_mib", rssMib);
    if (collector != null) {
      json.putObject("meta").put("collector", collector);
    }
    return new Row(scenario, json);
  }

  private static Map<String, Row> byName(Row... rows) {
    Map<String, Row> map = new LinkedHashMap<>();
    for (Row row : rows) {
      map.put(row.name(), row);
    }
    return map;
  }

  @Test
  void judgesTheSixtyFourMebibyteTargetOnTheSidecarScenarioNotTheDefaultFlags() {
    Map<String, Row> sluice =
        byName(
            row("traces-10k-fixed", null, 10_000, 9, 60),
            row("traces-10k-sidecar", null, 10_000, 12, 97));

    String md = ReportTargets.markdown(sluice, List.of(), Map.of());

    assertThat(md).contains("| `traces-10k-sidecar` ≤ 64 MiB peak RSS | 97.0 MiB | no |");
    assertThat(md).doesNotContain("`traces-10k-fixed` ≤ 64 MiB");
  }

  @Test
  void comparesTheSidecarsCpuWithRotelsRowOfTheSameRun() {
    Map<String, Row> sluice = byName(row("traces-10k-sidecar", null, 10_000, 9.5, 60));
    List<Row> peers =
        List.of(
            row("traces-10k-fixed", "otelcol", 10_000, 5, 80),
            row("traces-10k-fixed", "rotel", 10_000, 10.8, 79));

    String md = ReportTargets.markdown(sluice, peers, Map.of());

    assertThat(md)
        .contains("| `traces-10k-sidecar` ≤ 64 MiB peak RSS | 60.0 MiB | yes |")
        .contains(
            "| `traces-10k-sidecar` CPU ≤ rotel's in `traces-10k-fixed` (10.8 %) | 9.5 % | yes |");
  }

  @Test
  void leavesOutTheRotelComparisonWhenRotelDidNotRun() {
    String md =
        ReportTargets.markdown(
            byName(row("traces-10k-sidecar", null, 10_000, 9.5, 60)), List.of(), Map.of());

    assertThat(md).doesNotContain("rotel");
  }

  @Test
  void judgesTheDurableShareAndTheProcessorsRatioAgainstTheirInMemoryScenarios() {
    Map<String, Row> sluice =
        byName(
            row("traces-blackhole", null, 2_000_000, 99, 200),
            row("traces-processors", null, 1_000_000, 99, 200),
            row("traces-otlp-none", null, 1_000_000, 99, 200),
            row("traces-otlp-durable", null, 790_000, 99, 200));

    String md = ReportTargets.markdown(sluice, List.of(), Map.of());

    assertThat(md)
        .contains("| `traces-processors` CPU per span ≤ 1.5 × `traces-blackhole` | 2.00 × | no |")
        .contains(
            "| `traces-otlp-durable` throughput ≥ 80 % of `traces-otlp-none`'s | 79 % | no |");
  }
}
