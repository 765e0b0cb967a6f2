package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ReportCommand.Row row(String name, double cpuNsPerItem, Integer warmupSeconds) {
    ObjectNode json = JSON.createObjectNode();
    json.put("scenario", name);
    json.put("items_per_s", 1_000_000);
    json.put("cpu_ns_per_item", cpuNsPerItem);
    json.put("collector_cpu_pct", 99);
    ObjectNode generator = json.putObject("generator");
    generator.put("mode", "closed");
    if (warmupSeconds != null) {
      generator.put("warmup_s", warmupSeconds);
    }
    return new ReportCommand.Row(name, json);
  }

  @Test
  void listsEachRunsWarmUp() {
    String md =
        ReportCommand.markdown(
            List.of(
                row("grpc-floor", 400, 60),
                row("traces-blackhole", 580, 60),
                row("traces-otlp", 9000, 120),
                row("old", 1, null)),
            Map.of(),
            "report.svg");

    assertThat(md)
        .contains(
            "Warm-up in seconds: `grpc-floor` 60; `traces-blackhole` 60; `traces-otlp` 120;"
                + " `old` –.");
  }

  @Test
  void judgesTheFloorRatioFromTheSameReport() {
    String met =
        ReportCommand.markdown(
            List.of(row("grpc-floor", 400, 60), row("traces-blackhole", 580, 60)),
            Map.of(),
            "report.svg");
    String missed =
        ReportCommand.markdown(
            List.of(row("grpc-floor", 400, 60), row("traces-blackhole", 620, 60)),
            Map.of(),
            "report.svg");

    assertThat(met)
        .contains("| `traces-blackhole` CPU per span ≤ 1.5 × `grpc-floor` | 1.45 × | yes |");
    assertThat(missed)
        .contains("| `traces-blackhole` CPU per span ≤ 1.5 × `grpc-floor` | 1.55 × | no |");
  }

  @Test
  void marksARunOnAContendedHost() {
    ReportCommand.Row quiet = row("traces-blackhole", 580, 60);
    ((ObjectNode) quiet.json()).put("steal_pct", 0.4);
    ReportCommand.Row contended = row("traces-otlp-none", 2283, 60);
    ((ObjectNode) contended.json()).put("steal_pct", 6.5);

    assertThat(ReportCommand.notes(quiet)).doesNotContain("stolen");
    assertThat(ReportCommand.notes(contended))
        .contains("host contended: 7 % of the machine's CPU time stolen in the window");
  }
}
