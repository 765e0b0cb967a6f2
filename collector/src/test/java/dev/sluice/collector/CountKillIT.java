package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash test of a durable metrics pipeline fed by the {@code count} connector: {@code
 * bin/sluice} receives spans into {@code traces} (batch processor), which ends in {@code count};
 * {@code count} feeds {@code metrics}, whose OTLP exporter has {@code sending_queue.storage}. Only
 * the receiver logs, spans; counts are made from them. Each request's spans carry a service name of
 * their own ({@code svc-<first span>}), so each count at the backend names the request it counted.
 * Under steady load the backend stops answering (its calls are held) and the daemon is killed with
 * SIGKILL while it waits, {@value #KILLS} times, half of them at chosen points of the write-ahead
 * log; then restarted each time. In the end every request answered OK has been counted at the
 * backend at least once (a replayed request is counted again), and nothing that was never sent.
 */
class CountKillIT {
  private static final int KILLS = 8;
  private static final int SPANS_PER_REQUEST = KillLoop.SPANS_PER_REQUEST;

  @Test
  void everySpanAnsweredOkIsCountedAtTheDurablePipelineBehindCount(@TempDir Path dir)
      throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      KillLoop.Result run =
          new KillLoop(
                  KILLS,
                  31,
                  KillLoop.Numbering.REQUESTS,
                  KillLoop.Backlog.HELD_CALLS,
                  CountKillIT::config,
                  () -> KillLoop.requests(counts(sink)),
                  "every answered request is counted; %d answered")
              .run(dir, KillLoop.otlp(sink));
      List<long[]> counts = counts(sink);
      BitSet distinct = new BitSet();
      int recounts = 0;
      for (long[] count : counts) {
        int request = (int) count[0];
        assertThat(request).as("only sent spans are counted").isBetween(0, run.sent() - 1);
        assertThat(count[1]).as("request %d counted whole", request).isEqualTo(SPANS_PER_REQUEST);
        if (distinct.get(request)) {
          recounts++;
        }
        distinct.set(request);
      }
      run.assertEveryAnsweredCounted("CountKillIT", distinct, recounts);
    }
  }

  /**
   * Each span count that reached the backend: the request it counted (from the service name) and
   * the count.
   */
  private static List<long[]> counts(OtlpSink sink) {
    return KillLoop.requestPoints(sink, "trace.span.count");
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
        "  count:",
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
        "      processors: [batch]",
        "      exporters: [count]",
        "    metrics:",
        "      receivers: [count]",
        "      exporters: [otlp]",
        "");
  }
}
