package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash test of a durable metrics pipeline fed by the {@code spanmetrics} connector: {@code
 * bin/sluice} receives spans into {@code traces} (batch processor), which ends in {@code
 * spanmetrics} (delta sums, flushed every 100 ms); {@code spanmetrics} feeds {@code metrics}, whose
 * OTLP exporter has {@code sending_queue.storage}. Only the receiver logs, spans; the flushes are
 * made from them. Each request's spans carry a service name of their own ({@code svc-<first
 * span>}), so each {@code calls} point at the backend names the request it counted. Under steady
 * load the backend stops answering (its calls are held) and the daemon is killed with SIGKILL while
 * it waits, {@value #KILLS} times, half of them at chosen points of the write-ahead log; then
 * restarted each time. In the end the calls of every request answered OK add up at the backend to
 * its spans at least once (a replayed request is counted again: a whole multiple of them), and
 * nothing that was never sent is counted.
 */
class SpanMetricsKillIT {
  private static final int KILLS = 8;
  private static final int SPANS_PER_REQUEST = KillLoop.SPANS_PER_REQUEST;

  @Test
  void everySpanAnsweredOkIsCountedInAFlushOfTheDurablePipelineBehindSpanmetrics(@TempDir Path dir)
      throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      KillLoop.Result run =
          new KillLoop(
                  KILLS,
                  37,
                  KillLoop.Numbering.REQUESTS,
                  KillLoop.Backlog.HELD_CALLS,
                  SpanMetricsKillIT::config,
                  () -> KillLoop.requests(counts(sink)),
                  "every answered request is counted in a flush; %d answered")
              .run(dir, KillLoop.otlp(sink));
      List<long[]> counts = counts(sink);
      BitSet distinct = new BitSet();
      int recounts = 0;
      for (long[] count : counts) {
        int request = (int) count[0];
        assertThat(request).as("only sent spans are counted").isBetween(0, run.sent() - 1);
        assertThat(count[1] % SPANS_PER_REQUEST)
            .as("request %d counted whole, %d calls", request, count[1])
            .isZero();
        recounts += (int) (count[1] / SPANS_PER_REQUEST) - 1;
        distinct.set(request);
      }
      run.assertEveryAnsweredCounted("SpanMetricsKillIT", distinct, recounts);
    }
  }

  /**
   * The calls counted at the backend for each request that any were counted for: {request, calls}.
   */
  private static List<long[]> counts(OtlpSink sink) {
    Map<Integer, Long> calls = new TreeMap<>();
    for (long[] point : KillLoop.requestPoints(sink, "traces.span.metrics.calls")) {
      calls.merge((int) point[0], point[1], Long::sum);
    }
    List<long[]> counts = new ArrayList<>();
    calls.forEach((request, total) -> counts.add(new long[] {request, total}));
    return counts;
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
        "  spanmetrics:",
        "    aggregation_temporality: AGGREGATION_TEMPORALITY_DELTA",
        "    metrics_flush_interval: 100ms",
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
        "      exporters: [spanmetrics]",
        "    metrics:",
        "      receivers: [spanmetrics]",
        "      exporters: [otlp]",
        "");
  }
}
