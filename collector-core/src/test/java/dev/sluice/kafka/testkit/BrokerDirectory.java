package dev.sluice.kafka.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;

/**
 * The broker's temporary directory (configuration, storage, class path file, log) and the child
 * processes that run on it: the storage formatting and the broker itself.
 */
final class BrokerDirectory {
  private static final String MAX_HEAP = "-Xmx384m";
  private static final Duration FORMAT_TIMEOUT = Duration.ofSeconds(60);

  /** The log cleaner's default 128 MiB buffer would take a third of the child's heap. */
  private static final int CLEANER_BUFFER_BYTES = 4 * 1024 * 1024;

  private final Path directory;
  private final BrokerLog log;

  private BrokerDirectory(Path directory, String host) {
    this.directory = directory;
    this.log = new BrokerLog(directory.resolve("broker.log"), host);
  }

  /** A new, empty temporary directory for a broker listening on {@code host}. */
  static BrokerDirectory create(String host) throws IOException {
    return new BrokerDirectory(Files.createTempDirectory("sluice-kafka-"), host);
  }

  BrokerLog log() {
    return log;
  }

  /** The broker's {@code log.dirs}; the formatted metadata lives there too. */
  Path dataDirectory() {
    return directory.resolve("data");
  }

  /** Drops the formatted storage and all data: it is tied to the configuration it was made for. */
  void resetStorage() {
    deleteRecursively(dataDirectory());
  }

  /** Deletes the whole directory; the child processes must be gone. */
  void delete() {
    deleteRecursively(directory);
  }

  /**
   * Writes the broker's configuration for these ports, replacing any earlier one; storage formatted
   * for other ports must go first ({@link #resetStorage()}).
   */
  void writeConfiguration(String host, int brokerPort, int controllerPort, int defaultPartitions)
      throws IOException {
    Properties server = new Properties();
    server.put("process.roles", "broker,controller");
    server.put("node.id", "1");
    server.put("controller.quorum.bootstrap.servers", host + ":" + controllerPort);
    server.put(
        "listeners",
        "PLAINTEXT://" + host + ":" + brokerPort + ",CONTROLLER://" + host + ":" + controllerPort);
    server.put(
        "advertised.listeners",
        "PLAINTEXT://" + host + ":" + brokerPort + ",CONTROLLER://" + host + ":" + controllerPort);
    server.put("controller.listener.names", "CONTROLLER");
    server.put("inter.broker.listener.name", "PLAINTEXT");
    server.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    server.put("log.dirs", dataDirectory().toString());
    server.put("num.partitions", Integer.toString(defaultPartitions));
    server.put("default.replication.factor", "1");
    server.put("offsets.topic.replication.factor", "1");
    server.put("offsets.topic.num.partitions", "3");
    server.put("transaction.state.log.replication.factor", "1");
    server.put("transaction.state.log.min.isr", "1");
    server.put("transaction.state.log.num.partitions", "3");
    server.put("share.coordinator.state.topic.replication.factor", "1");
    server.put("share.coordinator.state.topic.min.isr", "1");
    server.put("group.initial.rebalance.delay.ms", "0");
    server.put("auto.create.topics.enable", "true");
    // Few threads: the machine the tests run on is small and shared.
    server.put("num.network.threads", "2");
    server.put("num.io.threads", "2");
    server.put("background.threads", "2");
    server.put("log.cleaner.dedupe.buffer.size", Integer.toString(CLEANER_BUFFER_BYTES));
    try (var out = Files.newBufferedWriter(serverProperties(), StandardCharsets.UTF_8)) {
      server.store(out, "single-node KRaft broker for tests");
    }
    // kafka-clients logs through SLF4J, bound to java.util.logging: the child's INFO lines go to
    // its log file.
    Files.writeString(
        directory.resolve("logging.properties"),
        String.join(
            "\n",
            "handlers=java.util.logging.ConsoleHandler",
            ".level=INFO",
            "java.util.logging.ConsoleHandler.level=ALL",
            "java.util.logging.SimpleFormatter.format=[%1$tT.%1$tL] %4$s %3$s: %5$s%6$s%n",
            ""),
        StandardCharsets.UTF_8);
  }

  /** Formats the storage (KRaft, standalone controller) for the configuration written last. */
  void format() throws IOException, InterruptedException {
    long formatNanos = System.nanoTime();
    String clusterId = Uuid.randomUuid().toString();
    Process formatting =
        launch(
            "kafka.tools.StorageTool",
            List.of(
                "format",
                "--standalone",
                "--cluster-id",
                clusterId,
                "--config",
                serverProperties().toString()));
    formatting.getOutputStream().close();
    if (!formatting.waitFor(FORMAT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      formatting.destroyForcibly();
      throw new IllegalStateException("formatting the storage timed out:\n" + log.tail());
    }
    if (formatting.exitValue() != 0) {
      throw new IllegalStateException(
          "formatting the storage failed (" + formatting.exitValue() + "):\n" + log.tail());
    }
    System.err.printf(
        "Kafka storage formatted in %d ms%n", (System.nanoTime() - formatNanos) / 1_000_000);
  }

  /** Starts the broker's child process on the configuration written last; its output is logged. */
  Process launchBroker() {
    return launch(KafkaBrokerMain.class.getName(), List.of(serverProperties().toString()));
  }

  private Process launch(String mainClass, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add(MAX_HEAP);
    command.add("-XX:+UseSerialGC");
    // Start-up is mostly class loading and compiling; the tests' load is light, so the quick
    // compiler alone starts the broker sooner on a small machine.
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Djava.awt.headless=true");
    command.add("-Djava.util.logging.config.file=" + directory.resolve("logging.properties"));
    command.add("@" + classPathArgumentFile());
    command.add(mainClass);
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.redirectErrorStream(true);
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(log.file().toFile()));
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + mainClass, e);
    }
  }

  /** The class path goes in a file: as an argument it can outgrow the system's limit. */
  private Path classPathArgumentFile() {
    Path file = directory.resolve("classpath.args");
    if (!Files.exists(file)) {
      String classPath = System.getProperty("java.class.path");
      String quoted = classPath.replace("\\", "\\\\").replace("\"", "\\\"");
      try {
        Files.writeString(file, "-cp \"" + quoted + "\"\n", StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return file;
  }

  private Path serverProperties() {
    return directory.resolve("server.properties");
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    } catch (IOException e) {
      // A temporary directory left behind is harmless.
    }
  }
}
