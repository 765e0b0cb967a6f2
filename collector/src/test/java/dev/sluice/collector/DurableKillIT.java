package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
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
  private static final int SPANS_PER_REQUEST = 50;
  private static final String[] POINTS = {"torn-write", "force", "roll", "progress", "delete"};

  @Test
  void everySpanAnsweredOkIsDeliveredThroughTwentyKills(@TempDir Path dir) throws Exception {
    Path launcher = Path.of("..", "bin", "sluice").toAbsolutePath().normalize();
    Random random = new Random(7);
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
        if (!last && random.nextInt(3) == 0) {
          sink.failNext(DurableKillIT::unavailable, DurableKillIT::unavailable);
        }
        Path log = dir.resolve("sluice-" + run + ".log");
        Process daemon = start(launcher, config, log, crash);
        try {
          awaitListening(port, daemon, log);
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
            long deadline =
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300 + random.nextInt(1200));
            while (daemon.isAlive() && System.nanoTime() - deadline < 0) {
              Thread.sleep(20);
            }
            daemon.destroyForcibly();
            assertThat(daemon.waitFor(30, TimeUnit.SECONDS)).isTrue();
            kills++;
            stop.set(true);
            client.join(30_000);
          }
        } finally {
          daemon.destroyForcibly();
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
          "DurableKillIT: %d kills, %d spans sent, %d answered OK, %d delivered, %d duplicates,"
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

  private static io.grpc.StatusRuntimeException unavailable() {
    return Status.UNAVAILABLE.asRuntimeException();
  }

  private static boolean containsAll(BitSet delivered, BitSet answered) {
    synchronized (answered) {
      BitSet missing = (BitSet) answered.clone();
      missing.andNot(delivered);
      return missing.isEmpty();
    }
  }

  private static java.util.BitSet delivered(OtlpSink sink) {
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

  static Process start(Path launcher, Path config, Path log, String crash) throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(launcher.toString(), "--config", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    if (!crash.isEmpty()) {
      builder.environment().put("JAVA_TOOL_OPTIONS", "-Dsluice.wal.crash=" + crash);
    }
    return builder.start();
  }

  static void awaitListening(int port, Process daemon, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() - deadline < 0) {
      if (!daemon.isAlive()) {
        // A crash point reached while replaying: the next run goes on from there.
        return;
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        Thread.sleep(50);
      }
    }
    throw new AssertionError("the daemon did not listen in time:\n" + Files.readString(log));
  }
}
