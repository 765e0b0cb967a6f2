package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code sluice validate} on the {@code probabilistic_sampler} processor's settings. */
class ProbabilisticSamplerConfigValidationTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @TempDir Path dir;

  private int validate(String... lines) throws Exception {
    Path config = dir.resolve("sluice.yaml");
    Files.writeString(config, String.join("\n", lines) + "\n");
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    return commandLine.execute("validate", "--config", config.toString());
  }

  @Test
  void aMetricsPipelineThatListsTheSamplerIsAnError() throws Exception {
    int code =
        validate(
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "        endpoint: 127.0.0.1:0",
            "processors:",
            "  probabilistic_sampler:",
            "    sampling_percentage: 10",
            "exporters:",
            "  debug:",
            "service:",
            "  pipelines:",
            "    traces:",
            "      receivers: [otlp]",
            "      processors: [probabilistic_sampler]",
            "      exporters: [debug]",
            "    metrics:",
            "      receivers: [otlp]",
            "      processors: [probabilistic_sampler]",
            "      exporters: [debug]");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "service.pipelines.metrics: processor \"probabilistic_sampler\" does not support"
                + " metrics")
        .doesNotContain("service.pipelines.traces");
  }

  @Test
  void invalidValuesAreReportedAtTheirKeys() throws Exception {
    int code =
        validate(
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "        endpoint: 127.0.0.1:0",
            "processors:",
            "  probabilistic_sampler/logs:",
            "    sampling_percentage: -5",
            "    mode: fastest",
            "    sampling_precision: 15",
            "    attribute_source: span",
            "exporters:",
            "  debug:",
            "service:",
            "  pipelines:",
            "    logs:",
            "      receivers: [otlp]",
            "      processors: [probabilistic_sampler/logs]",
            "      exporters: [debug]");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .contains("processors.probabilistic_sampler/logs.sampling_percentage: must not be negative")
        .contains("processors.probabilistic_sampler/logs.mode: must be hash_seed, proportional")
        .contains("processors.probabilistic_sampler/logs.sampling_precision: must be from 1 to 14")
        .contains(
            "processors.probabilistic_sampler/logs.attribute_source: must be traceID or record");
  }

  @Test
  void theCollectorsKeysLoadForTracesAndLogs() throws Exception {
    int code =
        validate(
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "        endpoint: 127.0.0.1:0",
            "processors:",
            "  probabilistic_sampler:",
            "    sampling_percentage: 15.3",
            "    hash_seed: 22",
            "    mode: proportional",
            "    sampling_precision: 6",
            "    fail_closed: false",
            "  probabilistic_sampler/logs:",
            "    sampling_percentage: 50",
            "    attribute_source: record",
            "    from_attribute: request.id",
            "    sampling_priority: priority",
            "exporters:",
            "  debug:",
            "service:",
            "  pipelines:",
            "    traces:",
            "      receivers: [otlp]",
            "      processors: [probabilistic_sampler]",
            "      exporters: [debug]",
            "    logs:",
            "      receivers: [otlp]",
            "      processors: [probabilistic_sampler/logs]",
            "      exporters: [debug]");

    assertThat(err.toString()).isEmpty();
    assertThat(code).isZero();
  }
}
