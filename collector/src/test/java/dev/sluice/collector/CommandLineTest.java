package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CommandLineTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    return commandLine.execute(args);
  }

  @Test
  void validateReportsEveryProblemWithFileLineAndColumnAndExitsWith2(@TempDir Path dir)
      throws Exception {
    Path config = dir.resolve("bad.yaml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "processors:",
            "  batch:",
            "    timeout: 5x",
            "  groupbytrace:",
            "exporters:",
            "  debug:",
            "service:",
            "  pipelines:",
            "    traces:",
            "      receivers: [otlp/2]",
            "      processors: [batch]",
            "      exporters: [debug]",
            ""));

    int code = run("validate", "--config", config.toString());

    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            config
                + ":7:5: processors.batch.timeout: expected a duration such as 5s or 200ms, found \"5x\"")
        .contains("processor type \"groupbytrace\" is not available in this build")
        .contains("references receiver \"otlp/2\" which is not configured");
  }

  @Test
  void validateAcceptsAGoodFile() {
    int code =
        run("validate", "--config", Path.of("..", "config", "examples", "fan-out.yaml").toString());

    assertThat(code).isZero();
    assertThat(out.toString()).contains("the configuration is valid");
  }

  @Test
  void runWithABadFileExitsWith2BeforeStartingAnything(@TempDir Path dir) throws Exception {
    Path config = dir.resolve("bad.yaml");
    Files.writeString(config, "receivers: [\n");

    assertThat(run("--config", config.toString())).isEqualTo(2);
  }

  @Test
  void componentsListsEveryTypeOfThisBuild() {
    assertThat(run("components")).isZero();

    assertThat(out.toString())
        .contains("receivers:\n  kafka\n  otlp")
        .contains("batch")
        .contains("memory_limiter")
        .contains("blackhole (also nop)")
        .contains("otlp (also otlp_grpc)")
        .contains("debug")
        .contains("health_check");
  }

  @Test
  void versionNamesTheBuild() {
    assertThat(run("--version")).isZero();

    assertThat(out.toString()).startsWith("Sluice 0.1.0");
  }
}
