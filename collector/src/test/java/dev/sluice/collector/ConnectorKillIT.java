package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
  private static final int SPANS_PER_REQUEST = 50;
  private static final String[] POINTS = {"torn-write", "force", "roll", "progress", "delete"};

  @Test
  void everySpanAnsweredOkReachesTheDurablePipelineBehindTheConnectors(@TempDir Path dir)
      throws Exception {
    Path launcher = Path.of("..", "bin", "sluice").toAbsolutePath().normalize();
    Random random = new Random(29);
    BitSet answered = new BitSet();
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
            assertThat(
                    sink.await(() -> containsAll(delivered(sink), answered), 60, TimeUnit.SECONDS))
                .as("every answered span arrives; %d answered", expected)
                .isTrue();
            daemon.destroy();
            assertThat(daemon.waitFor(60, TimeUnit.SECONDS)).isTrue();
          } else {
            // Deliveries at first, until what the run before left owed has arrived; then the
            // backend stops answering, and the kill comes while the exporter waits on it with
            // the log holding what it has not delivered.
            awaitDelivered(sink, daemon, snapshot(answered));
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
      List<Integer> arrived = BackpressureTest.spanNumbers(sink);
      BitSet distinct = new BitSet();
      int duplicates = 0;
      for (int number : arrived) {
        assertThat(number).as("only sent spans arrive").isBetween(0, sent[0] - 1);
        if (distinct.get(number)) {
          duplicates++;
        }
        distinct.set(number);
      }
      BitSet missing = (BitSet) answered.clone();
      missing.andNot(distinct);
      assertThat(missing.cardinality()).as("answered spans never delivered: %s", missing).isZero();
      System.out.printf(
          "ConnectorKillIT: %d kills, %d spans sent, %d answered OK, %d delivered, %d duplicates,"
              + " %d s%n",
          kills,
          sent[0],
          answered.cardinality(),
          distinct.cardinality(),
          duplicates,
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
      assertThat(answered.cardinality()).isGreaterThan(KILLS * SPANS_PER_REQUEST);
    }
  }

  /**
   * Waits until every span of {@code answered} has arrived, for at most 30 s, or until the daemon
   * ends (a crash point reached): the kill test goes on either way.
   */
  private static void awaitDelivered(OtlpSink sink, Process daemon, BitSet answered)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (daemon.isAlive()
        && System.nanoTime() - deadline < 0
        && !sink.await(() -> containsAll(delivered(sink), answered), 100, TimeUnit.MILLISECONDS)) {
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

  private static boolean containsAll(BitSet delivered, BitSet answered) {
    synchronized (answered) {
      BitSet missing = (BitSet) answered.clone();
      missing.andNot(delivered);
      return missing.isEmpty();
    }
  }

  private static BitSet delivered(OtlpSink sink) {
    BitSet delivered = new BitSet();
    for (int number : BackpressureTest.spanNumbers(sink)) {
      delivered.set(number);
    }
    return delivered;
  }

  /** Sends requests of sequential spans until stopped; records the spans of each answered OK. */
  private static void load(int port, int[] sent, BitSet answered, AtomicBoolean stop) {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      while (!stop.get()) {
        int first;
        synchronized (sent) {
          first = sent[0];
          sent[0] += SPANS_PER_REQUEST;
        }
        try {
          TraceServiceGrpc.newBlockingStub(channel)
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .export(SequencedSpans.request("svc", first, SPANS_PER_REQUEST));
          synchronized (answered) {
            answered.set(first, first + SPANS_PER_REQUEST);
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
        "  forward:",
        "  routing:",
        "    default_pipelines: [traces/other]",
        "    table:",
        "      - condition: attributes[\"service.name\"] == \"svc\"",
        "        pipelines: [traces/out]",
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
