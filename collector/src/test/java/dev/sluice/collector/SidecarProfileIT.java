package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/sluice --profile sidecar} over the runnable jar, as its own process: it answers OTLP
 * over gRPC and HTTP with the default configuration's pipelines (on free ports), and runs with the
 * flags of {@code bin/jvm-sidecar.options} (those for its JDK) and the sidecar sizing, as its
 * {@code /proc/PID/cmdline} and its log show; and with gRPC's Netty on the classes those flags
 * leave it, as {@code jcmd} lists them.
 */
class SidecarProfileIT {
  private static final Path BIN = Path.of("..", "bin").toAbsolutePath().normalize();

  @Test
  void answersWithTheSidecarFlagsOfItsJdk(@TempDir Path dir) throws Exception {
    int grpcPort = DaemonIT.freePort();
    int httpPort = DaemonIT.freePort();
    Path config = dir.resolve("sluice.yaml");
    // The embedded default configuration, on free ports instead of 4317 and 4318.
    String defaults;
    try (var in = Main.class.getResourceAsStream("default-config.yaml")) {
      defaults = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Files.writeString(
        config,
        defaults
            .replace("localhost:4317", "127.0.0.1:" + grpcPort)
            .replace("localhost:4318", "127.0.0.1:" + httpPort));
    Path log = dir.resolve("sluice.log");
    ProcessBuilder builder =
        new ProcessBuilder(
                BIN.resolve("sluice").toString(), "--profile", "sidecar", "--config", "" + config)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().remove("SLUICE_JAVA_OPTS");
    builder.environment().remove("SLUICE_PROFILE");
    Process daemon = builder.start();
    try {
      awaitListening(grpcPort, daemon, log);
      awaitListening(httpPort, daemon, log);
      ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
      try {
        ExportTraceServiceResponse answer =
            TraceServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(10, TimeUnit.SECONDS)
                .export(SequencedSpans.request("svc", 0, 100));
        assertThat(answer.hasPartialSuccess()).isFalse();
      } finally {
        channel.shutdownNow();
      }
      HttpResponse<String> http =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/v1/traces"))
                      .header("Content-Type", "application/x-protobuf")
                      .POST(
                          HttpRequest.BodyPublishers.ofByteArray(
                              SequencedSpans.request("svc", 100, 100).toByteArray()))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(http.statusCode()).isEqualTo(200);

      List<String> cmdline = cmdline(daemon.pid());
      Path java = Path.of("/proc/" + daemon.pid() + "/exe").toRealPath();
      int feature = feature(java.getParent().getParent());
      assertThat(cmdline).containsAll(expectedFlags(feature)).contains("-Dsluice.profile=sidecar");
      assertThat(cmdline).doesNotContain("--profile").doesNotContain("-Xmx256m");
      assertThat(Files.readString(log)).contains("(sidecar profile)");
      if (Files.isDirectory(Path.of("/usr/lib/jvm/temurin-25-jdk-amd64"))) {
        // A JDK 25 is installed: the profile runs on it.
        assertThat(feature).as(java.toString()).isGreaterThanOrEqualTo(25);
      }
      // Both Netty copies, having served a call each, run on Unsafe without the JDK's warning about
      // it, and started neither the flight recorder nor the foreign memory API's native linker and
      // layouts (they only probe that both exist, which loads a few classes of each).
      assertThat(Files.readString(log)).doesNotContain("sun.misc.Unsafe");
      String classes = loadedClasses(java, daemon.pid());
      assertThat(classes)
          .contains("io.grpc.netty.shaded.io.netty.util.internal.PlatformDependent0/")
          .contains("io.netty.util.internal.PlatformDependent0/")
          .doesNotContain("jdk.jfr.internal.periodic.")
          .doesNotContain("jdk.jfr.internal.settings.")
          .doesNotContain("jdk.internal.foreign.abi.x64.")
          .doesNotContain("jdk.internal.foreign.layout.");
    } finally {
      daemon.destroy();
      if (!daemon.waitFor(30, TimeUnit.SECONDS)) {
        daemon.destroyForcibly();
      }
    }
  }

  /** The flags of jvm-sidecar.options that a JDK of {@code feature} runs with. */
  private static List<String> expectedFlags(int feature) throws IOException {
    List<String> flags = new ArrayList<>();
    for (String line : Files.readAllLines(BIN.resolve("jvm-sidecar.options"))) {
      String flag = line.strip();
      if (flag.isEmpty() || flag.startsWith("#")) {
        continue;
      }
      if (flag.startsWith("[")) {
        int needed = Integer.parseInt(flag.substring(1, flag.indexOf("+]")));
        if (feature < needed) {
          continue;
        }
        flag = flag.substring(flag.indexOf("+]") + 2).strip();
      }
      flags.add(flag);
    }
    assertThat(flags).isNotEmpty();
    return flags;
  }

  /** Every class the process has loaded, as {@code jcmd PID VM.class_hierarchy} lists them. */
  private static String loadedClasses(Path java, long pid) throws Exception {
    Path jcmd = java.resolveSibling("jcmd");
    Process process =
        new ProcessBuilder(jcmd.toString(), Long.toString(pid), "VM.class_hierarchy")
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    return output;
  }

  private static List<String> cmdline(long pid) throws IOException {
    String raw = new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")), "UTF-8");
    return Arrays.asList(raw.split("\0"));
  }

  /** The feature version in a JDK home's release file. */
  private static int feature(Path home) throws IOException {
    for (String line : Files.readAllLines(home.resolve("release"))) {
      if (line.startsWith("JAVA_VERSION=\"")) {
        String version = line.substring("JAVA_VERSION=\"".length());
        return Integer.parseInt(version.split("[.\"]")[0]);
      }
    }
    throw new AssertionError("no JAVA_VERSION in " + home.resolve("release"));
  }

  private static void awaitListening(int port, Process daemon, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() - deadline < 0) {
      if (!daemon.isAlive()) {
        throw new AssertionError("the collector exited early:\n" + Files.readString(log));
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        Thread.sleep(100);
      }
    }
    throw new AssertionError("the collector did not listen in time:\n" + Files.readString(log));
  }
}
