package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash test of a durable metrics pipeline fed by the {@code servicegraph} connector: {@code
 * bin/sluice} receives spans into {@code traces}, which ends in {@code servicegraph} (flushed every
 * 100 ms, edges wait up to 2 s); {@code servicegraph} feeds {@code metrics}, whose OTLP exporter
 * has {@code sending_queue.storage}. Only the receiver logs, spans. Each number of the load is
 * {@value KillLoop#SPANS_PER_REQUEST} calls from {@code client-<n>} to {@code server-<n>}, their
 * client spans in one request and their server spans in the next (no batch processor: each request
 * reaches the connector as a batch of its own), so a flush often comes between the two halves of an
 * edge. Under steady load the backend stops answering (its calls are held, and forgotten once the
 * daemon is dead) and the daemon is killed with SIGKILL while it waits, {@value #KILLS} times, half
 * of them at chosen points of the write-ahead log; then restarted each time.
 *
 * <p>The metrics are cumulative and start again from zero at every start, so each start's counts
 * are read apart (by the points' start time): in the end, every number answered OK has its calls
 * counted whole in at least one start ({@code traces_service_graph_request_total} of the edge,
 * {@value KillLoop#SPANS_PER_REQUEST} or a multiple when replayed pairs are counted again), and
 * nothing that was never sent is counted.
 */
class ServiceGraphKillIT {
  private static final int KILLS = 8;
  private static final int CALLS = KillLoop.SPANS_PER_REQUEST;
  private static final String REQUEST_TOTAL = "traces_service_graph_request_total";

  @Test
  void everyCallAnsweredOkIsCountedInAFlushOfTheDurablePipelineBehindServicegraph(@TempDir Path dir)
      throws Exception {
    try (OtlpSink sink = OtlpSink.start().forgetHeldCalls()) {
      KillLoop.Result run =
          new KillLoop(
                  KILLS,
                  41,
                  KillLoop.Numbering.EDGES,
                  KillLoop.Backlog.HELD_CALLS,
                  ServiceGraphKillIT::config,
                  () -> counted(counts(sink)),
                  "every answered pair of requests is counted in a flush; %d answered")
              .run(dir, KillLoop.otlp(sink));
      Map<Integer, Map<Long, Long>> counts = counts(sink);
      int recounts = 0;
      for (Map.Entry<Integer, Map<Long, Long>> edge : counts.entrySet()) {
        int number = edge.getKey();
        assertThat(number).as("only sent calls are counted").isBetween(0, run.sent() - 1);
        for (long calls : edge.getValue().values()) {
          assertThat(calls % CALLS).as("number %d counted whole, %d calls", number, calls).isZero();
          recounts += (int) (calls / CALLS);
        }
        recounts--;
      }
      run.assertEveryAnsweredCounted("ServiceGraphKillIT", counted(counts), recounts);
    }
  }

  /** The numbers whose calls were counted whole in some start. */
  private static BitSet counted(Map<Integer, Map<Long, Long>> counts) {
    BitSet counted = new BitSet();
    counts.forEach(
        (number, byStart) -> {
          if (byStart.values().stream().anyMatch(calls -> calls >= CALLS)) {
            counted.set(number);
          }
        });
    return counted;
  }

  /**
   * For each number counted, its edge's {@code request_total} at each start of the daemon (the
   * points' start time): the largest cumulative value that start delivered.
   */
  private static Map<Integer, Map<Long, Long>> counts(OtlpSink sink) {
    Map<Integer, Map<Long, Long>> counts = new TreeMap<>();
    for (ExportMetricsServiceRequest request : sink.metrics()) {
      for (ResourceMetrics resource : request.getResourceMetricsList()) {
        for (ScopeMetrics scope : resource.getScopeMetricsList()) {
          for (Metric metric : scope.getMetricsList()) {
            if (!metric.getName().equals(REQUEST_TOTAL)) {
              continue;
            }
            for (NumberDataPoint point : metric.getSum().getDataPointsList()) {
              Map<String, String> attributes = new HashMap<>();
              for (KeyValue attribute : point.getAttributesList()) {
                attributes.put(attribute.getKey(), attribute.getValue().getStringValue());
              }
              String client = attributes.getOrDefault("client", "");
              String server = attributes.getOrDefault("server", "");
              assertThat(client).as("a client of the load").startsWith("client-");
              int number = Integer.parseInt(client.substring("client-".length()));
              if (server.equals("unknown")) {
                // Client spans whose server spans never came (the daemon was killed between the
                // two requests): a virtual node's edge once expired, as the Collector counts it.
                continue;
              }
              assertThat(server)
                  .as("the server client-%d called", number)
                  .isEqualTo("server-" + number);
              counts
                  .computeIfAbsent(number, n -> new TreeMap<>())
                  .merge(point.getStartTimeUnixNano(), point.getAsInt(), Math::max);
            }
          }
        }
      }
    }
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
        "connectors:",
        "  servicegraph:",
        "    metrics_flush_interval: 100ms",
        "    store_expiration_loop: 100ms",
        "    store:",
        "      ttl: 2s",
        "      max_items: 20000",
        "    max_series: 100000",
        "    latency_histogram_buckets: [1s]",
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
        "      exporters: [servicegraph]",
        "    metrics:",
        "      receivers: [servicegraph]",
        "      exporters: [otlp]",
        "");
  }
}
