package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
  private static final int SPANS_PER_REQUEST = 50;
  private static final String[] POINTS = {"torn-write", "force", "roll", "progress", "delete"};

  @Test
  void everySpanAnsweredOkIsCountedAtTheDurablePipelineBehindCount(@TempDir Path dir)
      throws Exception {
    Path launcher = Path.of("..", "bin", "sluice").toAbsolutePath().normalize();
    Random random = new Random(31);
    BitSet answered = new BitSet(); // by request: first span / SPANS_PER_REQUEST
    int[] sent = {0};
    int kills = 0;
    try (OtlpSink sink = OtlpSink.start()) {
      int port = DaemonIT.freePort();
      Path config = dir.resolve("sluice.yaml");
      Files.writeString(config, config(port, sink.endpoint(), dir.resolve("wal")));
      long started = System.nanoTime();
      for (int run = 0; run <= KILLS; run++) {
        boolean last = run == KILLS;
        String crash = "";
        if (!last && random.nextBoolean()) {
          crash = POINTS[random.nextInt(POINTS.length)] + ":" + (1 + random.nextInt(20));
        }
        Path log = dir.resolve("sluice-" + run + ".log");
        Process daemon = DurableKillIT.start(launcher, config, log, crash);
        try {
          DurableKillIT.awaitListening(port, daemon, log);
          AtomicBoolean stop = new AtomicBoolean();
          Thread client = new Thread(() -> load(port, sent, answered, stop), "load");
          client.start();
          if (last) {
            Thread.sleep(500);
            stop.set(true);
            client.join(30_000);
            int expected = answered.cardinality();
            assertThat(sink.await(() -> containsAll(counted(sink), answered), 60, TimeUnit.SECONDS))
                .as("every answered request is counted; %d answered", expected)
                .isTrue();
            daemon.destroy();
            assertThat(daemon.waitFor(60, TimeUnit.SECONDS)).isTrue();
          } else {
            // Deliveries at first, until what the run before left owed has been counted; then the
            // backend stops answering, and the kill comes while the exporter waits on it with
            // the log holding the spans whose counts it has not delivered.
            awaitCounted(sink, daemon, snapshot(answered));
            runFor(daemon, 100 + random.nextInt(400));
            sink.hold();
            runFor(daemon, 200 + random.nextInt(600));
            daemon.destroyForcibly();
            assertThat(daemon.waitFor(30, TimeUnit.SECONDS)).isTrue();
            sink.release();
            kills++;
            stop.set(true);
            client.join(30_000);
          }
        } finally {
          daemon.destroyForcibly();
          sink.release();
        }
      }
      List<long[]> counts = counts(sink);
      BitSet distinct = new BitSet();
      int recounts = 0;
      for (long[] count : counts) {
        int request = (int) count[0];
        assertThat(request).as("only sent spans are counted").isBetween(0, sent[0] - 1);
        assertThat(count[1]).as("request %d counted whole", request).isEqualTo(SPANS_PER_REQUEST);
        if (distinct.get(request)) {
          recounts++;
        }
        distinct.set(request);
      }
      BitSet missing = (BitSet) answered.clone();
      missing.andNot(distinct);
      assertThat(missing.cardinality()).as("answered requests never counted: %s", missing).isZero();
      System.out.printf(
          "CountKillIT: %d kills, %d requests sent, %d answered OK, %d counted, %d counted again,"
              + " %d s%n",
          kills,
          sent[0],
          answered.cardinality(),
          distinct.cardinality(),
          recounts,
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
      assertThat(answered.cardinality()).isGreaterThan(KILLS);
    }
  }

  /**
   * Waits until every request of {@code answered} has been counted, for at most 30 s, or until the
   * daemon ends (a crash point reached): the kill test goes on either way.
   */
  private static void awaitCounted(OtlpSink sink, Process daemon, BitSet answered)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (daemon.isAlive()
        && System.nanoTime() - deadline < 0
        && !sink.await(() -> containsAll(counted(sink), answered), 100, TimeUnit.MILLISECONDS)) {
      // Asked again while the daemon runs.
    }
  }

  private static BitSet snapshot(BitSet answered) {
    synchronized (answered) {
      return (BitSet) answered.clone();
    }
  }

  /** Lets the daemon run {@code millis}, or until it ends (a crash point reached). */
  private static void runFor(Process daemon, long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (daemon.isAlive() && System.nanoTime() - deadline < 0) {
      Thread.sleep(20);
    }
  }

  private static boolean containsAll(BitSet counted, BitSet answered) {
    synchronized (answered) {
      BitSet missing = (BitSet) answered.clone();
      missing.andNot(counted);
      return missing.isEmpty();
    }
  }

  /** The requests counted at the backend so far. */
  private static BitSet counted(OtlpSink sink) {
    BitSet counted = new BitSet();
    for (long[] count : counts(sink)) {
      counted.set((int) count[0]);
    }
    return counted;
  }

  /**
   * Each span count that reached the backend: the request it counted (from the service name) and
   * the count.
   */
  private static List<long[]> counts(OtlpSink sink) {
    List<long[]> counts = new ArrayList<>();
    for (ExportMetricsServiceRequest request : sink.metrics()) {
      for (ResourceMetrics resource : request.getResourceMetricsList()) {
        String service = null;
        for (KeyValue attribute : resource.getResource().getAttributesList()) {
          if (attribute.getKey().equals("service.name")) {
            service = attribute.getValue().getStringValue();
          }
        }
        for (ScopeMetrics scope : resource.getScopeMetricsList()) {
          for (Metric metric : scope.getMetricsList()) {
            if (!metric.getName().equals("trace.span.count")) {
              continue;
            }
            for (NumberDataPoint point : metric.getSum().getDataPointsList()) {
              int first = Integer.parseInt(service.substring("svc-".length()));
              counts.add(new long[] {first / SPANS_PER_REQUEST, point.getAsInt()});
            }
          }
        }
      }
    }
    return counts;
  }

  /**
   * Sends requests of sequential spans, each with its own service name, until stopped; records each
   * answered OK.
   */
  private static void load(int port, int[] sent, BitSet answered, AtomicBoolean stop) {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      while (!stop.get()) {
        int request;
        synchronized (sent) {
          request = sent[0]++;
        }
        int first = request * SPANS_PER_REQUEST;
        try {
          TraceServiceGrpc.newBlockingStub(channel)
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .export(SequencedSpans.request("svc-" + first, first, SPANS_PER_REQUEST));
          synchronized (answered) {
            answered.set(request);
          }
        } catch (RuntimeException refusedOrKilled) {
          if (stop.get()) {
            return;
          }
          try {
            Thread.sleep(20);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    } finally {
      channel.shutdownNow();
    }
  }

  private static String config(int port, String sink, Path wal) {
    return String.join(
        "\n",
        "extensions:",
        "  file_storage:",
        "    directory: " + wal,
        "    segment_size_mib: 1",
        "    max_size_mib: 256",
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
        "  otlp:",
        "    endpoint: " + sink,
        "    tls:",
        "      insecure: true",
        "    timeout: 1s",
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
        "      exporters: [count]",
        "    metrics:",
        "      receivers: [count]",
        "      exporters: [otlp]",
        "");
  }
}
