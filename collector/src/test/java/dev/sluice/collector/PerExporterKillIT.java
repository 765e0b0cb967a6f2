package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/sluice} with two exporters that have storage, one backend down, killed with SIGKILL
 * after the other delivered: the next daemon delivers everything to the one that was down, and
 * nothing again to the one that had it.
 */
class PerExporterKillIT {
  private static final int REQUESTS = 5;
  private static final int SPANS_PER_REQUEST = 50;
  private static final int SPANS = REQUESTS * SPANS_PER_REQUEST;

  @Test
  void aKilledDaemonReplaysOnlyToTheExporterThatHadNotDelivered(@TempDir Path dir)
      throws Exception {
    Path launcher = Path.of("..", "bin", "sluice").toAbsolutePath().normalize();
    try (OtlpSink up = OtlpSink.start();
        OtlpSink down = OtlpSink.start();
        OtlpSink back = OtlpSink.start()) {
      down.failNext(unavailable(100_000));
      int port = DaemonIT.freePort();
      Path config = dir.resolve("sluice.yaml");
      Files.writeString(config, config(port, up.endpoint(), down.endpoint(), dir.resolve("wal")));
      Path firstLog = dir.resolve("sluice-0.log");
      Process first = KillLoop.start(launcher, config, firstLog, "");
      try {
        KillLoop.awaitListening(port, first, firstLog);
        send(port);
        assertThat(up.await(() -> up.spans() == SPANS, 30, TimeUnit.SECONDS)).isTrue();
        // Killed once the log's progress file says otlp/up is done with every request.
        Path progress = dir.resolve("wal").resolve("progress");
        Await.until(
            "otlp/up's watermark past every request",
            () -> persistedWatermark(progress, "otlp/up") >= REQUESTS);
      } finally {
        first.destroyForcibly();
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(down.spans()).isZero();

      Files.writeString(config, config(port, up.endpoint(), back.endpoint(), dir.resolve("wal")));
      Path secondLog = dir.resolve("sluice-1.log");
      Process second = KillLoop.start(launcher, config, secondLog, "");
      try {
        KillLoop.awaitListening(port, second, secondLog);
        assertThat(back.await(() -> back.spans() == SPANS, 30, TimeUnit.SECONDS)).isTrue();
      } finally {
        second.destroy();
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
      }
      List<Integer> all = IntStream.range(0, SPANS).boxed().toList();
      assertThat(BackpressureTest.spanNumbers(back)).containsExactlyInAnyOrderElementsOf(all);
      assertThat(BackpressureTest.spanNumbers(up)).containsExactlyInAnyOrderElementsOf(all);
    }
  }

  /**
   * The first sequence {@code consumer} is not done with, as the log's progress file holds it
   * (magic, version, count, then each consumer's name and watermark, then a checksum), or -1 while
   * the file is missing or being replaced.
   */
  static long persistedWatermark(Path file, String consumer) {
    try {
      java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(Files.readAllBytes(file));
      in.getInt();
      in.get();
      int count = in.getInt();
      for (int i = 0; i < count; i++) {
        byte[] name = new byte[in.getShort() & 0xFFFF];
        in.get(name);
        long watermark = in.getLong();
        int ranges = in.getShort() & 0xFFFF;
        in.position(in.position() + 16 * ranges);
        if (new String(name, java.nio.charset.StandardCharsets.UTF_8).equals(consumer)) {
          return watermark;
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      // Not there yet, or replaced while read: asked again.
    }
    return -1;
  }

  private static void send(int port) {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      for (int r = 0; r < REQUESTS; r++) {
        TraceServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .export(SequencedSpans.request("svc", r * SPANS_PER_REQUEST, SPANS_PER_REQUEST));
      }
    } finally {
      channel.shutdownNow();
    }
  }

  @SuppressWarnings("unchecked")
  private static Supplier<StatusRuntimeException>[] unavailable(int times) {
    Supplier<StatusRuntimeException>[] errors = new Supplier[times];
    for (int i = 0; i < times; i++) {
      errors[i] = () -> Status.UNAVAILABLE.asRuntimeException();
    }
    return errors;
  }

  private static String config(int port, String up, String down, Path wal) {
    return String.join(
        "\n",
        "extensions:",
        "  file_storage:",
        "    directory: " + wal,
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "        endpoint: 127.0.0.1:" + port,
        "processors:",
        "  batch:",
        "    timeout: 20ms",
        "exporters:",
        "  otlp/up:",
        "    endpoint: " + up,
        "    tls:",
        "      insecure: true",
        "    sending_queue:",
        "      storage: file_storage",
        "  otlp/down:",
        "    endpoint: " + down,
        "    tls:",
        "      insecure: true",
        "    retry_on_failure:",
        "      initial_interval: 50ms",
        "      max_interval: 200ms",
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
        "      exporters: [otlp/up, otlp/down]",
        "");
  }
}
