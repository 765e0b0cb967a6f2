package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash test of durable pipelines: {@code bin/sluice} with {@code sending_queue.storage}
 * receives steady load from a client that records every span answered OK, and is killed with
 * SIGKILL {@value #KILLS} times, at random moments and at chosen points of its write-ahead log
 * (halfway through a write, before a force, just after a segment roll, before a progress write,
 * just after a deletion), then restarted each time. The backend refuses now and then, so the log
 * holds data at the kills. In the end every span answered OK has been delivered, and nothing that
 * was never sent.
 */
class DurableKillIT {
  private static final int KILLS = 20;

  @Test
  void everySpanAnsweredOkIsDeliveredThroughTwentyKills(@TempDir Path dir) throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      KillLoop.Result run =
          new KillLoop(
                  KILLS,
                  7,
                  KillLoop.Numbering.SPANS,
                  KillLoop.Backlog.REFUSALS,
                  DurableKillIT::config,
                  () -> KillLoop.deliveredSpans(sink),
                  "every answered span arrives; %d answered")
              .run(dir, KillLoop.otlp(sink));
      run.assertEveryAnsweredSpanDelivered("DurableKillIT", sink);
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
        "exporters:",
        "  otlp:",
        "    endpoint: " + sink,
        "    tls:",
        "      insecure: true",
        "    retry_on_failure:",
        "      initial_interval: 20ms",
        "      max_interval: 100ms",
        "    sending_queue:",
        "      storage: file_storage",
        "service:",
        "  extensions: [file_storage]",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        "      processors: [batch]",
        "      exporters: [otlp]",
        "");
  }
}
