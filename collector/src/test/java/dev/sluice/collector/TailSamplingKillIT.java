package dev.sluice.collector;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash test of a durable pipeline through {@code tail_sampling}: {@code bin/sluice} receives
 * spans of traces that cross requests, holds them in {@code tail_sampling} for a {@code
 * decision_wait} of a second, and sends what its policy samples (every trace) to an OTLP exporter
 * with {@code sending_queue.storage}. The daemon is killed with SIGKILL {@value #KILLS} times at
 * random moments, mostly while traces wait for their decision (half of the kills at chosen points
 * of the write-ahead log), and restarted each time. In the end every span answered OK has arrived
 * at the backend: spans waiting for a decision at a kill were in the log, came back at the restart,
 * and were decided then.
 */
class TailSamplingKillIT {
  private static final int KILLS = 6;

  @Test
  void everySpanAnsweredOkArrivesThoughKilledWhileItsTraceWaited(@TempDir Path dir)
      throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      new KillLoop(
              KILLS,
              30,
              KillLoop.Numbering.TRACES,
              KillLoop.Backlog.REFUSALS,
              TailSamplingKillIT::config,
              () -> KillLoop.deliveredSpans(sink),
              "every span answered OK arrives; %d answered")
          .run(dir, KillLoop.otlp(sink))
          .assertEveryAnsweredSpanDelivered("TailSamplingKillIT", sink);
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
        "  tail_sampling:",
        "    decision_wait: 1s",
        "    policies:",
        "      - name: everything",
        "        type: always_sample",
        "exporters:",
        KillLoop.durableOtlpExporter(sink),
        "service:",
        "  extensions: [file_storage]",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        "      processors: [tail_sampling]",
        "      exporters: [otlp]",
        "");
  }
}
