package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code sluice validate} on the {@code kafka} receiver's settings: every error, located. */
class KafkaReceiverConfigValidationTest {
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @TempDir Path dir;

  private int validate(String... receiverLines) throws Exception {
    StringBuilder yaml = new StringBuilder("receivers:\n  kafka:\n");
    for (String line : receiverLines) {
      yaml.append("    ").append(line).append('\n');
    }
    yaml.append(
        String.join(
            "\n",
            "exporters:",
            "  debug:",
            "service:",
            "  pipelines:",
            "    traces:",
            "      receivers: [kafka]",
            "      exporters: [debug]",
            ""));
    Path config = dir.resolve("sluice.yaml");
    Files.writeString(config, yaml.toString());
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    return commandLine.execute("validate", "--config", config.toString());
  }

  @Test
  void theDefaultsAreValid() throws Exception {
    assertThat(validate("brokers: [127.0.0.1:9092]")).as(err.toString()).isZero();
  }

  @Test
  void refusesAnUnknownInitialOffsetAndNamesTheKey() throws Exception {
    int code = validate("initial_offset: oldest");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("initial_offset").contains("oldest");
  }

  @Test
  void reportsInvalidValuesOfKnownKeysWithTheirPaths() throws Exception {
    int code =
        validate(
            "brokers: [nowhere]",
            "encoding: zipkin_json",
            "session_timeout: 2s",
            "heartbeat_interval: 3s",
            "traces:",
            "  topics: ['^spans[']",
            "  encoding: jaeger_proto");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .contains("receivers.kafka.brokers[0]: must be host:port")
        .contains("receivers.kafka.encoding: \"zipkin_json\" is not supported")
        .contains("receivers.kafka.heartbeat_interval: must be shorter than session_timeout")
        .contains("receivers.kafka.traces.topics[0]: invalid regular expression")
        .contains("receivers.kafka.traces.encoding: \"jaeger_proto\" is not supported");
  }
}
