package dev.sluice.bench.fault;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The collector under test: {@code bin/sluice} as a child process on loopback, with its output in a
 * log file, stopped with SIGKILL or SIGTERM. A crash point of the write-ahead log ({@code
 * -Dsluice.wal.crash=POINT:N}) goes in through {@code JAVA_TOOL_OPTIONS}, so that {@code
 * bin/sluice} keeps its usual JVM flags.
 */
final class FaultDaemon {
  static final String HOST = "127.0.0.1";

  private static final long START_TIMEOUT_SECONDS = 60;
  private static final long KILL_WAIT_SECONDS = 30;

  private final Process process;
  private final Path log;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private FaultDaemon(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Starts {@code launcher --config config [arguments]}; {@code crash} is POINT:N or empty. */
  static FaultDaemon start(
      Path launcher, Path config, Path log, String crash, List<String> arguments)
      throws IOException {
    List<String> command =
        new ArrayList<>(List.of(launcher.toString(), "--config", config.toString()));
    command.addAll(arguments);
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().remove("JAVA_TOOL_OPTIONS");
    if (!crash.isEmpty()) {
      builder.environment().put("JAVA_TOOL_OPTIONS", "-Dsluice.wal.crash=" + crash);
    }
    Process process = builder.start();
    // A run that is interrupted must not leave the collector behind.
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "fault-daemon-stop"));
    return new FaultDaemon(process, log);
  }

  /**
   * Waits until the collector listens on {@code port}: true; false when it exited first (a crash
   * point reached during its start). Throws when it neither listens nor exits in time.
   */
  boolean awaitListening(int port) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
    while (System.nanoTime() - deadline < 0) {
      if (!process.isAlive()) {
        return false;
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(HOST, port), 200);
        return true;
      } catch (IOException notYet) {
        Thread.sleep(50);
      }
    }
    throw new IOException("the collector did not listen on " + port + " in time:" + tail(20));
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Its exit status, or -1 while it runs. */
  int exitStatus() {
    return process.isAlive() ? -1 : process.exitValue();
  }

  /**
   * SIGKILL; returns the exit status (137 for the kill, or the status it had already ended with).
   */
  int kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(KILL_WAIT_SECONDS, TimeUnit.SECONDS)) {
      throw new IllegalStateException(
          "the collector outlived SIGKILL for " + KILL_WAIT_SECONDS + " s");
    }
    return process.exitValue();
  }

  /**
   * SIGTERM, then waits up to {@code timeoutSeconds}; returns the exit status, or -1 when it had
   * not ended in time (it is then killed).
   */
  int stop(long timeoutSeconds) throws InterruptedException {
    process.destroy();
    if (process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      return process.exitValue();
    }
    kill();
    return -1;
  }

  /** A figure from the collector's metrics endpoint (the sum over its series), or -1. */
  double metric(int metricsPort, String name) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://" + HOST + ":" + metricsPort + "/metrics"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      double sum = -1;
      for (String line : response.body().split("\n")) {
        if (line.startsWith(name)
            && line.length() > name.length()
            && (line.charAt(name.length()) == ' ' || line.charAt(name.length()) == '{')) {
          String[] parts = line.trim().split("\\s+");
          sum = Math.max(sum, 0) + Double.parseDouble(parts[parts.length - 1]);
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

  Path log() {
    return log;
  }

  /** The log's last {@code count} lines, indented, one string. */
  String tail(int count) {
    List<String> lines;
    try {
      lines = Files.readAllLines(log);
    } catch (IOException e) {
      return "\n    | (no log: " + e.getMessage() + ")";
    }
    StringBuilder tail = new StringBuilder();
    for (int i = Math.max(0, lines.size() - count); i < lines.size(); i++) {
      tail.append("\n    | ").append(lines.get(i));
    }
    return tail.toString();
  }
}
