package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A tls section that cannot be loaded stops the start with one line naming the key. */
class TlsStartFailureTest {
  @Test
  void aMissingCertificateFileIsOneLineWithoutAStackTrace(@TempDir Path dir) throws Exception {
    Path missing = dir.resolve("absent.pem");
    Path config = dir.resolve("config.yaml");
    Files.writeString(
        config,
        String.join(
            "\n",
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "        endpoint: 127.0.0.1:0",
            "        tls:",
            "          cert_file: " + missing,
            "          key_file: " + missing,
            "exporters:",
            "  debug:",
            "service:",
            "  telemetry:",
            "    metrics: {level: none}",
            "  pipelines:",
            "    traces: {receivers: [otlp], exporters: [debug]}",
            ""));
    // The log handler, installed at start, writes to the System.err of that moment.
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream original = System.err;
    int code;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      code = Main.commandLine().execute("--config", config.toString());
    } finally {
      System.setErr(original);
    }

    String log = err.toString(StandardCharsets.UTF_8);
    assertThat(code).isNotZero();
    assertThat(log)
        .contains(
            "Sluice could not start: receivers.otlp.protocols.grpc.tls.cert_file "
                + missing
                + ": cannot read it: no such file")
        .doesNotContain("\tat ")
        .doesNotContain("Exception");
  }
}
