package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged daemon: {@code bin/sluice} over the runnable jar, started as its own process,
 * receives data, and on SIGTERM delivers everything it accepted and exits with 0.
 */
class DaemonIT {
  @Test
  void deliversEverythingAcceptedAndExitsCleanlyOnSigterm(@TempDir Path dir) throws Exception {
    Path launcher = Path.of("..", "bin", "sluice").toAbsolutePath().normalize();
    assertThat(launcher).isExecutable();
    try (OtlpSink sink = OtlpSink.start()) {
      int port = freePort();
      Path config = dir.resolve("sluice.yaml");
      Files.writeString(
          config,
          String.join(
              "\n",
              "receivers:",
              "  otlp:",
              "    protocols:",
              "      grpc:",
              "        endpoint: 127.0.0.1:" + port,
              "processors:",
              "  batch:",
              "    timeout: 10s",
              "exporters:",
              "  otlp:",
              "    endpoint: " + sink.endpoint(),
              "    tls:",
              "      insecure: true",
              "service:",
              "  telemetry:",
              "    metrics:",
              "      level: none",
              "  pipelines:",
              "    traces:",
              "      receivers: [otlp]",
              "      processors: [batch]",
              "      exporters: [otlp]",
              ""));
      Path log = dir.resolve("sluice.log");
      Process daemon =
          new ProcessBuilder(launcher.toString(), "--config", config.toString())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      try {
        awaitListening(port, daemon, log);
        ManagedChannel channel =
            NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
        try {
          for (int i = 0; i < 5; i++) {
            TraceServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(10, TimeUnit.SECONDS)
                .export(SequencedSpans.request("svc", i * 200, 200));
          }
        } finally {
          channel.shutdownNow();
        }
        // The batcher holds the spans (timeout 10s): only the shutdown flush delivers them.
        assertThat(sink.spans()).isZero();

        daemon.destroy();
        assertThat(daemon.waitFor(60, TimeUnit.SECONDS)).as(Files.readString(log)).isTrue();
        assertThat(daemon.exitValue()).as(Files.readString(log)).isZero();
        assertThat(sink.spans()).isEqualTo(1000);
        assertThat(Files.readString(log)).contains("Shutdown complete");
        // The jar's manifest lets request arrays skip zeroing (ByteArrays).
        assertThat(Files.readString(log)).doesNotContain("Request arrays are zeroed");
      } finally {
        daemon.destroyForcibly();
      }
    }
  }

  /** A loopback port free a moment ago, for a daemon that must be told its port. */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static void awaitListening(int port, Process daemon, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() - deadline < 0) {
      if (!daemon.isAlive()) {
        throw new AssertionError("the daemon exited early:\n" + Files.readString(log));
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        Thread.sleep(100);
      }
    }
    throw new AssertionError("the daemon did not listen in time:\n" + Files.readString(log));
  }
}
