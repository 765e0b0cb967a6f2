package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code sluice validate} names each problem of a nested section once, with its full key path. */
class ValidateOnceTest {
  private static final String RECEIVER_TLS_AUTH =
      """
      receivers:
        otlp:
          protocols:
            grpc:
              tls:
                cert_file: server.crt
              auth:
                authenticator: ""
      """;

  private static final String EXPORTER =
      """
      exporters:
        otlp:
          endpoint: backend:4317
          tls:
            cert_file: client.crt
          sending_queue:
            num_consumers: 0
          retry_on_failure:
            multiplier: 0.5
      """;

  private static final String SERVICE =
      """
      service:
        pipelines:
          traces: {receivers: [otlp], exporters: [otlp]}
      """;

  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "15:7 | exporters.otlp.sending_queue.num_consumers: must be at least 1, was 0",
        "17:7 | exporters.otlp.retry_on_failure.multiplier: must be at least 1, was 0.5",
        "12:5 | exporters.otlp.tls.key_file: set both cert_file and key_file, or neither",
        "5:9 | receivers.otlp.protocols.grpc.tls.key_file: a TLS server needs key_file",
        "8:11 | receivers.otlp.protocols.grpc.auth.authenticator: is required: the id of an"
            + " authenticator extension",
      })
  void reportsANestedSectionsProblemOnceAtItsKey(String position, String problem) throws Exception {
    Path config = dir.resolve("config.yaml");
    Files.writeString(config, RECEIVER_TLS_AUTH + EXPORTER + SERVICE);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));

    int code = commandLine.execute("validate", "--config", config.toString());

    assertThat(code).isEqualTo(2);
    String line = config + ":" + position + ": " + problem;
    assertThat(occurrences(err.toString(), problem)).as(err.toString()).isEqualTo(1);
    assertThat(err.toString()).contains(line);
  }

  private static int occurrences(String text, String what) {
    Matcher m = Pattern.compile(Pattern.quote(what)).matcher(text);
    int count = 0;
    while (m.find()) {
      count++;
    }
    return count;
  }
}
