package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PeerTableTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A closed-loop result of {@code collector} (null: Sluice, which records none before peers). */
  private static ObjectNode result(String scenario, String collector, double itemsPerSecond) {
    ObjectNode json = JSON.createObjectNode();
    json.put("scenario", scenario);
    json.put("result_line", "RESULT scenario=" + scenario);
    json.put("items_per_s", itemsPerSecond);
    json.put("cpu_ns_per_item", 1e9 / itemsPerSecond);
    json.put("collector_cpu_pct", 99);
    json.put("gen_cpu_pct", 40);
    ObjectNode generator = json.putObject("generator");
    generator.put("mode", "closed");
    generator.put("warmup_s", 30);
    generator.put("duration_s", 30);
    json.putObject("totals").put("items_accepted", 1000);
    ObjectNode meta = json.putObject("meta");
    if (collector != null) {
      meta.put("collector", collector);
      meta.put("collector_version", collector + "-version");
    }
    meta.put("commit", "abc1234");
    meta.put("cpu_model", "Test CPU");
    meta.put("nproc", "2");
    meta.put("kernel", "6.1");
    meta.put("pinned", "yes");
    meta.put("loadavg_start", "0.50 0.40 0.30");
    meta.put("report_command", "bench/report.sh --peers");
    meta.put(
        "command",
        "bench/run-scenario.sh "
            + scenario
            + " --collector "
            + (collector == null ? "sluice" : collector));
    return json;
  }

  private static ReportCommand.Row row(ObjectNode json) {
    return new ReportCommand.Row(json.get("scenario").asText(), json);
  }

  private static ObjectNode delivered(ObjectNode json, String source, long items) {
    json.putObject("delivery").put("source", source).put("items_delivered", items);
    return json;
  }

  @Test
  void putsEachPeerAfterSluiceInTheSameScenarioInTheFixedPeerOrder() {
    List<ReportCommand.Row> sluice =
        List.of(
            row(result("traces-blackhole", null, 1_000_000)),
            row(result("traces-otlp", null, 500_000)),
            row(result("naive", null, 300_000)));
    List<ReportCommand.Row> peers =
        List.of(
            row(result("traces-otlp", "rotel", 400_000)),
            row(result("traces-blackhole", "rotel", 700_000)),
            row(result("traces-blackhole", "otelcol", 200_000)));

    assertThat(PeerTable.sideBySide(sluice, peers))
        .extracting(r -> r.name() + "/" + r.collector())
        .containsExactly(
            "traces-blackhole/sluice",
            "traces-blackhole/otelcol",
            "traces-blackhole/rotel",
            "traces-otlp/sluice",
            "traces-otlp/rotel");
  }

  @Test
  void saysWhoCountedWhatArrivedOrThatNothingDid() {
    assertThat(
            PeerTable.delivered(
                row(delivered(result("traces-otlp", "otelcol", 1), "sink:http://x/counts", 1000))))
        .isEqualTo("all (sink)");
    ObjectNode resent = delivered(result("traces-otlp", "rotel", 1), "sink:http://x/counts", 1032);
    resent.put("dropped", -32);
    ReportCommand.Row twice = row(resent);
    assertThat(PeerTable.delivered(twice)).isEqualTo("all (sink)");
    assertThat(ReportCommand.notes(twice)).contains("32 items delivered twice (exports retried)");
    assertThat(
            PeerTable.delivered(
                row(
                    delivered(
                        result("traces-blackhole", "otelcol", 1),
                        "metric:http://x/metrics#otelcol_exporter_sent",
                        900))))
        .isEqualTo("900 of 1,000 (own metrics)");
    assertThat(PeerTable.delivered(row(result("traces-blackhole", "rotel", 1))))
        .isEqualTo("not measured");
    ObjectNode idle = result("idle", "rotel", 0);
    idle.with("totals").put("items_accepted", 0);
    assertThat(PeerTable.delivered(row(idle))).isEqualTo("–");
  }

  @Test
  void recordsVersionsCommitMachineCommandAndThePeersThatCouldNotRun() {
    String md =
        PeerTable.markdown(
            List.of(row(result("traces-blackhole", null, 1_000_000))),
            List.of(row(result("traces-blackhole", "rotel", 700_000))),
            List.of("otelcol: the go command is not on PATH"));

    assertThat(md)
        .contains("| `traces-blackhole` | **Sluice** | 1,000,000 | 1,000 | 99.0 |")
        .contains("| `traces-blackhole` | rotel | 700,000 | 1,429 | 99.0 |")
        .contains("Versions: sluice version not recorded; rotel rotel-version. Commit abc1234.")
        .contains("Machine: Test CPU, 2 cores, kernel 6.1. Pinned: yes.")
        .contains("Command: `bench/report.sh --peers`")
        .contains("`traces-blackhole` rotel 30 + 30 s, load 0.50 0.40 0.30")
        .contains("Not run: otelcol: the go command is not on PATH.");
  }

  @Test
  void leavesTheSectionOutWhenNoPeerWasAsked() {
    List<ReportCommand.Row> sluice = List.of(row(result("traces-blackhole", null, 1_000_000)));

    assertThat(PeerTable.markdown(sluice, List.of(), List.of())).isEmpty();
    assertThat(ReportCommand.markdown(sluice, Map.of(), "report.svg"))
        .doesNotContain("other collectors");
  }

  @Test
  void keepsPeerResultsOutOfSluicesRowsAndListsThemAfterSluicesInTheStandardOrder(@TempDir Path dir)
      throws Exception {
    Files.writeString(
        dir.resolve("second.otelcol.json"),
        JSON.writeValueAsString(result("second", "otelcol", 1)));
    Files.writeString(
        dir.resolve("second.json"), JSON.writeValueAsString(result("second", null, 1)));
    Files.writeString(
        dir.resolve("first.rotel.json"), JSON.writeValueAsString(result("first", "rotel", 1)));
    Files.writeString(dir.resolve("first.json"), JSON.writeValueAsString(result("first", null, 1)));
    ReportCommand report = new ReportCommand();
    report.results = dir;
    report.scenarios = Files.writeString(dir.resolve("standard.list"), "first\nsecond\n");

    assertThat(report.loadAll())
        .extracting(r -> r.name() + "/" + r.collector())
        .containsExactly("first/sluice", "first/rotel", "second/sluice", "second/otelcol");
    assertThat(report.load())
        .extracting(r -> r.name() + "/" + r.collector())
        .containsExactly("first/sluice", "second/sluice");
  }
}
