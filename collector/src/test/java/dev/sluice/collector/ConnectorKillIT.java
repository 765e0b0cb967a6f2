package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash test of a durable pipeline behind connectors: {@code bin/sluice} receives spans into
 * {@code traces/in} (batch processor), which passes them through a {@code forward} connector to
 * {@code traces/mid} and through a {@code routing} connector to {@code traces/out}, whose OTLP
 * exporter has {@code sending_queue.storage}. Only the receiver logs. Under steady load the backend
 * stops answering (its calls are held) and the daemon is killed with SIGKILL while it waits,
 * {@value #KILLS} times, half of them at chosen points of the write-ahead log; then restarted each
 * time. In the end every span answered OK has reached the backend, and nothing that was never sent.
 */
class ConnectorKillIT {
  private static final int KILLS = 8;

  @Test
  void everySpanAnsweredOkReachesTheDurablePipelineBehindTheConnectors(@TempDir Path dir)
      throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      KillLoop.Result run =
          new KillLoop(
                  KILLS,
                  29,
                  KillLoop.Numbering.SPANS,
                  KillLoop.Backlog.HELD_CALLS,
                  ConnectorKillIT::config,
                  () -> KillLoop.deliveredSpans(sink),
                  "every answered span arrives; %d answered")
              .run(dir, KillLoop.otlp(sink));
      run.assertEveryAnsweredSpanDelivered("ConnectorKillIT", sink);
      assertThat(run.answered().cardinality()).isGreaterThan(KILLS * KillLoop.SPANS_PER_REQUEST);
    }
  }

  private static String config(int port, String sink, Path wal) {
    return String.join(
        "\n",
        KillLoop.fileStorage(wal),
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "        endpoint: 127.0.0.1:" + port,
        "processors:",
        "  batch:",
        "    timeout: 50ms",
        "connectors:",
        "  forward:",
        "  routing:",
        "    default_pipelines: [traces/other]",
        "    table:",
        "      - condition: attributes[\"service.name\"] == \"svc\"",
        "        pipelines: [traces/out]",
        "exporters:",
        KillLoop.durableOtlpExporter(sink),
        "  debug:",
        "service:",
        "  extensions: [file_storage]",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces/in:",
        "      receivers: [otlp]",
        "      processors: [batch]",
        "      exporters: [forward]",
        "    traces/mid:",
        "      receivers: [forward]",
        "      exporters: [routing]",
        "    traces/out:",
        "      receivers: [routing]",
        "      exporters: [otlp]",
        "    traces/other:",
        "      receivers: [routing]",
        "      exporters: [debug]",
        "");
  }
}
