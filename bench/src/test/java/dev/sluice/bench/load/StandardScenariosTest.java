package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StandardScenariosTest {
  private static final Path LIST = Path.of("scenarios", "standard.list");

  @Test
  void everyStandardScenarioHasItsFileAndComesInTheListsOrder() throws Exception {
    List<String> names = StandardScenarios.read(LIST);

    assertThat(names).startsWith("grpc-floor", "traces-blackhole").contains("idle");
    assertThat(names).doesNotHaveDuplicates().noneMatch(name -> name.contains("#"));
    for (String name : names) {
      assertThat(Path.of("scenarios", name + ".yaml")).as(name).isRegularFile();
    }
  }

  @Test
  void skipsCommentsAndBlankLines() {
    assertThat(StandardScenarios.parse(List.of("# the set", "", "  b  ", "# a", "a")))
        .containsExactly("b", "a");
  }

  @Test
  void theReportListsTheStandardSetFirstInTheListsOrderThenTheRestByName(@TempDir Path dir)
      throws Exception {
    ObjectMapper json = new ObjectMapper();
    for (String name : List.of("a-extra", "second", "first", "b-extra")) {
      ObjectNode result = json.createObjectNode();
      result.put("scenario", name);
      result.put("result_line", "RESULT scenario=" + name);
      Files.writeString(dir.resolve(name + ".json"), json.writeValueAsString(result));
    }
    Path list = Files.writeString(dir.resolve("standard.list"), "# ours\nfirst\nsecond\nabsent\n");
    ReportCommand report = new ReportCommand();
    report.results = dir;
    report.scenarios = list;

    assertThat(report.load())
        .extracting(ReportCommand.Row::name)
        .containsExactly("first", "second", "a-extra", "b-extra");
  }
}
