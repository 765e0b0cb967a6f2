package dev.sluice.bench.hostile;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The collector under attack: {@code bin/sluice} (its default JVM flags) started as a child process
 * on loopback ports with OTLP gRPC and HTTP receivers, traces batched to the sink and logs and
 * metrics to the blackhole, and its own metrics endpoint on.
 */
final class Daemon implements AutoCloseable {
  static final String HOST = "127.0.0.1";
  private static final long START_TIMEOUT_SECONDS = 60;
  private static final long STOP_TIMEOUT_SECONDS = 30;
  private static final int LAST_LINES = 5;
  private static final String MEMORY_METRIC = "sluice_pipeline_memory_used_bytes";

  private final Process process;
  private final Path log;
  private final int grpcPort;
  private final int httpPort;
  private final int metricsPort;
  private final HttpClient metricsClient =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private Daemon(Process process, Path log, int grpcPort, int httpPort, int metricsPort) {
    this.process = process;
    this.log = log;
    this.grpcPort = grpcPort;
    this.httpPort = httpPort;
    this.metricsPort = metricsPort;
  }

  static String config(int grpcPort, int httpPort, int metricsPort, int sinkPort) {
    return String.join(
        "\n",
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "        endpoint: " + HOST + ":" + grpcPort,
        "      http:",
        "        endpoint: " + HOST + ":" + httpPort,
        "processors:",
        "  batch:",
        "    timeout: 200ms",
        "exporters:",
        "  otlp:",
        "    endpoint: " + HOST + ":" + sinkPort,
        "    tls:",
        "      insecure: true",
        "    compression: none",
        "  blackhole:",
        "service:",
        "  telemetry:",
        "    logs:",
        "      level: warn",
        "    metrics:",
        "      address: " + HOST + ":" + metricsPort,
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        "      processors: [batch]",
        "      exporters: [otlp]",
        "    metrics:",
        "      receivers: [otlp]",
        "      processors: [batch]",
        "      exporters: [blackhole]",
        "    logs:",
        "      receivers: [otlp]",
        "      processors: [batch]",
        "      exporters: [blackhole]",
        "");
  }

  /** Starts {@code launcher} ({@code bin/sluice}) and waits until both receivers listen. */
  static Daemon start(Path launcher, Path dir, int sinkPort)
      throws IOException, InterruptedException {
    int grpcPort = freePort();
    int httpPort = freePort();
    int metricsPort = freePort();
    Path config = dir.resolve("sluice-hostile.yaml");
    Files.writeString(config, config(grpcPort, httpPort, metricsPort, sinkPort));
    Path log = dir.resolve("sluice-hostile.log");
    Process process =
        new ProcessBuilder(launcher.toString(), "--config", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    // A run that is interrupted must not leave the daemon behind.
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "daemon-stop"));
    Daemon daemon = new Daemon(process, log, grpcPort, httpPort, metricsPort);
    try {
      daemon.awaitListening(grpcPort);
      daemon.awaitListening(httpPort);
      daemon.awaitListening(metricsPort);
    } catch (IOException | RuntimeException e) {
      daemon.close();
      throw e;
    }
    return daemon;
  }

  private void awaitListening(int port) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
    while (System.nanoTime() - deadline < 0) {
      if (!process.isAlive()) {
        throw new IOException("the daemon exited early:\n" + logText());
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(HOST, port), 200);
        return;
      } catch (IOException notYet) {
        Thread.sleep(100);
      }
    }
    throw new IOException("the daemon did not listen on " + port + " in time:\n" + logText());
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return socket.getLocalPort();
    }
  }

  int grpcPort() {
    return grpcPort;
  }

  int httpPort() {
    return httpPort;
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Peak resident set ({@code VmHWM} of {@code /proc/PID/status}) in KiB; -1 if unreadable. */
  long peakRssKib() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.substring("VmHWM:".length()).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** {@code sluice_pipeline_memory_used_bytes} from the metrics endpoint; -1 if unreadable. */
  long pipelineBytes() {
    try {
      HttpResponse<String> response =
          metricsClient.send(
              HttpRequest.newBuilder(URI.create("http://" + HOST + ":" + metricsPort + "/metrics"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      long sum = -1;
      for (String line : response.body().split("\n")) {
        if (line.startsWith(MEMORY_METRIC)
            && (line.charAt(MEMORY_METRIC.length()) == ' '
                || line.charAt(MEMORY_METRIC.length()) == '{')) {
          String[] parts = line.trim().split("\\s+");
          sum = Math.max(sum, 0) + (long) Double.parseDouble(parts[parts.length - 1]);
        }
      }
      return sum;
    } catch (IOException | RuntimeException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** Polls the pipelines' memory until it is 0 or the time is up; returns the last reading. */
  long awaitPipelinesEmpty(long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    long bytes = pipelineBytes();
    while (bytes != 0 && System.nanoTime() - deadline < 0) {
      Thread.sleep(100);
      bytes = pipelineBytes();
    }
    return bytes;
  }

  String logText() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** The log's last lines (why it died), one string. */
  String lastLines() {
    String[] lines = logText().split("\n");
    StringBuilder tail = new StringBuilder();
    for (int i = Math.max(0, lines.length - LAST_LINES); i < lines.length; i++) {
      tail.append("\n    | ").append(lines[i]);
    }
    return tail.toString();
  }

  Path log() {
    return log;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
  }
}
