package dev.sluice.kafka.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real single-node Apache Kafka broker (KRaft, broker and controller in one process) in a child
 * JVM, for tests. Register it as a static extension, one per test class, since it takes seconds to
 * start:
 *
 * <pre>{@code
 * @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker();
 * }</pre>
 *
 * <p>The extension owns a temporary directory (configuration, data, the child's log) and the
 * process: both go in {@code afterAll}, and also when the start fails. The child halts by itself
 * when the test JVM dies (it watches its standard input), and a shutdown hook destroys it on an
 * orderly exit. {@link #stop()} and {@link #start()} stop and start the broker again on the same
 * data and ports, for tests of a broker that goes away.
 *
 * <p>The ports are chosen free on loopback, and the child binds them seconds later: when another
 * process took one in between, the first start begins again on fresh ports and fresh storage (up to
 * {@value #START_ATTEMPTS} times). A restart never moves; it fails and names the taken port. The
 * child runs {@code kafka.Kafka} from the test's own class path, so a test module that uses this
 * kit declares {@code org.apache.kafka:kafka_2.13} as a test dependency.
 */
public final class KafkaBroker implements BeforeAllCallback, AfterAllCallback {
  private static final String HOST = "127.0.0.1";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration ADMIN_CALL_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

  /**
   * How many times the first start chooses ports: a port is free when chosen, but the child binds
   * it seconds later, and another process may take it in between.
   */
  static final int START_ATTEMPTS = 3;

  /**
   * The Kafka clients the tests create log every configuration at INFO; held here because
   * java.util.logging keeps loggers only weakly.
   */
  private static final Logger KAFKA_CLIENT_LOGGER = quietKafkaClientLogs();

  private final int defaultPartitions;
  private final IntSupplier ports;
  private BrokerDirectory directory;
  private int brokerPort;
  private int controllerPort;
  private Process process;
  private Admin admin;
  private Thread shutdownHook;

  /** A broker whose automatically created topics have one partition. */
  public KafkaBroker() {
    this(1);
  }

  /** A broker whose automatically created topics have {@code defaultPartitions} partitions. */
  public KafkaBroker(int defaultPartitions) {
    this(defaultPartitions, KafkaBroker::freePort);
  }

  /** A broker that takes its two ports (client, then controller) from {@code ports}. */
  KafkaBroker(int defaultPartitions, IntSupplier ports) {
    if (defaultPartitions < 1) {
      throw new IllegalArgumentException("defaultPartitions must be at least 1");
    }
    this.defaultPartitions = defaultPartitions;
    this.ports = ports;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    directory = BrokerDirectory.create(HOST);
    try {
      startOnFreshPorts();
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (context.getExecutionException().isPresent() && directory != null) {
      System.err.println("Kafka broker log (last lines):\n" + logTail());
    }
    close();
  }

  /** The {@code bootstrap.servers} value that reaches this broker. */
  public String bootstrapServers() {
    return HOST + ":" + brokerPort;
  }

  /**
   * Starts the broker again after {@link #stop()}, on the same data and ports, and waits until it
   * answers. When another process took one of its ports in the meantime, this fails and says so:
   * the broker does not move, since its clients hold its address.
   */
  public synchronized void start() {
    OptionalInt taken = launchUntilReady();
    if (taken.isPresent()) {
      int port = taken.getAsInt();
      throw new IllegalStateException(
          String.format(
              "the broker cannot start again: another process holds %s:%d, its %s port; the"
                  + " broker does not move to other ports, since its clients hold the address"
                  + " %s:%n%s",
              HOST,
              port,
              port == brokerPort ? "client (bootstrap)" : "controller",
              bootstrapServers(),
              logTail()));
    }
  }

  /** Stops the broker in an orderly way (SIGTERM, then SIGKILL after a while); data is kept. */
  public synchronized void stop() {
    if (admin != null) {
      admin.close(Duration.ZERO);
      admin = null;
    }
    destroyProcess();
  }

  /** Whether the child process is alive. */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Creates a topic with replication factor 1 and waits until each partition has a leader. */
  public void createTopic(String name, int partitions) {
    Admin client = requireAdmin();
    try {
      client.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + name, e.getCause());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted creating topic " + name, e);
    }
    awaitLeaders(client, name, partitions);
  }

  /** A producer of byte arrays with {@code acks=all}; {@code overrides} replace its settings. */
  public KafkaProducer<byte[], byte[]> producer(Map<String, Object> overrides) {
    Properties properties = new Properties();
    properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    properties.putAll(overrides);
    return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** A consumer of byte arrays with no group, for {@code assign}; {@code overrides} replace. */
  public KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> overrides) {
    Properties properties = new Properties();
    properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    properties.putAll(overrides);
    return new KafkaConsumer<>(
        properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /**
   * Reads {@code topic} from the beginning of every partition until {@code count} records were read
   * or {@code timeout} passed, and returns what was read (fewer than {@code count} on a timeout, so
   * that the test's assertion says what is missing).
   */
  public List<ConsumerRecord<byte[], byte[]>> readFromBeginning(
      String topic, int count, Duration timeout) {
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(Map.of())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, timeout).stream()
              .map(info -> new TopicPartition(topic, info.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (records.size() < count && System.nanoTime() < deadline) {
        consumer.poll(POLL_INTERVAL).forEach(records::add);
      }
    }
    return records;
  }

  /**
   * The broker's log directory ({@code log.dirs}): one folder per partition, {@code topic-N},
   * holding the record batches as they are on disk, for tests that read them (compression).
   */
  public Path logDirectory() {
    return directory.dataDirectory();
  }

  /** The last lines of the child's output, for a failure message. */
  public String logTail() {
    return directory == null ? "(no log)" : directory.log().tail();
  }

  /**
   * Chooses the ports, formats the storage for them and starts. When another process took a port
   * between its choice and the child's bind, the attempt is thrown away with its storage (the
   * formatted metadata names the controller's address) and the next one chooses again, up to {@link
   * #START_ATTEMPTS} times. Any other failure throws at once.
   */
  private void startOnFreshPorts() throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      brokerPort = ports.getAsInt();
      controllerPort = ports.getAsInt();
      if (controllerPort == brokerPort) {
        // Two free ports chosen one after the other can be the same one.
        controllerPort = ports.getAsInt();
      }
      directory.writeConfiguration(HOST, brokerPort, controllerPort, defaultPartitions);
      directory.format();
      OptionalInt taken = launchUntilReady();
      if (taken.isEmpty()) {
        return;
      }
      if (attempt == START_ATTEMPTS) {
        throw new IllegalStateException(
            String.format(
                "the broker found a port it was given taken by another process on each of %d"
                    + " attempts (the last one %s:%d):%n%s",
                START_ATTEMPTS, HOST, taken.getAsInt(), logTail()));
      }
      System.err.printf(
          "Kafka broker: %s:%d was taken before the broker bound it; starting on other ports"
              + " (attempt %d of %d)%n",
          HOST, taken.getAsInt(), attempt + 1, START_ATTEMPTS);
      directory.resetStorage();
    }
  }

  /**
   * Launches the broker on the configured ports and waits until it answers. Returns empty then, or
   * the port that another process held, once the failed attempt's process is gone; any other
   * failure throws with the log's tail, the process gone as well.
   */
  private synchronized OptionalInt launchUntilReady() {
    if (process != null) {
      throw new IllegalStateException("the broker is running");
    }
    long logOffsetBytes = directory.log().endOffsetBytes();
    process = directory.launchBroker();
    if (shutdownHook == null) {
      shutdownHook = new Thread(this::destroyProcess, "kafka-broker-shutdown");
      Runtime.getRuntime().addShutdownHook(shutdownHook);
    }
    long startNanos = System.nanoTime();
    OptionalInt taken;
    try {
      admin = Admin.create(adminProperties());
      taken = awaitReady(logOffsetBytes);
    } catch (RuntimeException | Error e) {
      stop();
      throw e;
    }
    if (taken.isPresent()) {
      stop();
      return taken;
    }
    System.err.printf(
        "Kafka broker at %s answered after %d ms%n",
        bootstrapServers(), (System.nanoTime() - startNanos) / 1_000_000);
    return OptionalInt.empty();
  }

  /**
   * Waits until the broker answers (empty) or its log, written since {@code logOffsetBytes}, says
   * that another process holds one of its ports (that port). The child exits after such a bind
   * failure, but the log is read while it still runs too: its shutdown can take a while.
   */
  private OptionalInt awaitReady(long logOffsetBytes) {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      // Sampled before the log is read: once the child is gone, its output is all in the file.
      boolean exited = !process.isAlive();
      OptionalInt taken = directory.log().portTakenSince(logOffsetBytes);
      if (taken.isPresent()) {
        return taken;
      }
      if (exited) {
        throw new IllegalStateException(
            "the broker exited (" + process.exitValue() + "):\n" + logTail());
      }
      try {
        if (!admin
            .describeCluster()
            .nodes()
            .get(ADMIN_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .isEmpty()) {
          return OptionalInt.empty();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for the broker", e);
      } catch (Exception e) {
        last = e;
      }
      sleep(POLL_INTERVAL);
    }
    throw new IllegalStateException(
        "the broker did not answer within " + START_TIMEOUT + " (" + last + "):\n" + logTail());
  }

  private static void awaitLeaders(Admin client, String topic, int partitions) {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        TopicDescription description =
            client
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(ADMIN_CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .get(topic);
        if (description.partitions().size() == partitions
            && description.partitions().stream().allMatch(p -> p.leader() != null)) {
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for topic " + topic, e);
      } catch (Exception e) {
        // Not known yet: ask again.
      }
      sleep(POLL_INTERVAL);
    }
    throw new IllegalStateException("topic " + topic + " has no leader for every partition");
  }

  private Properties adminProperties() {
    Properties properties = new Properties();
    properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    properties.put(
        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) ADMIN_CALL_TIMEOUT.toMillis());
    properties.put(
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) ADMIN_CALL_TIMEOUT.toMillis());
    return properties;
  }

  private synchronized Admin requireAdmin() {
    if (admin == null) {
      throw new IllegalStateException("the broker is stopped");
    }
    return admin;
  }

  private synchronized void destroyProcess() {
    if (process == null) {
      return;
    }
    long stopNanos = System.nanoTime();
    process.destroy();
    try {
      if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    process = null;
    System.err.printf(
        "Kafka broker stopped after %d ms%n", (System.nanoTime() - stopNanos) / 1_000_000);
  }

  private void close() {
    stop();
    if (shutdownHook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // The JVM is already shutting down; the hook runs or ran.
      }
      shutdownHook = null;
    }
    if (directory != null) {
      directory.delete();
      directory = null;
    }
  }

  private static Logger quietKafkaClientLogs() {
    Logger logger = Logger.getLogger("org.apache.kafka");
    logger.setLevel(Level.WARNING);
    return logger;
  }

  /** A loopback port that is free now, which says nothing about a moment later. */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket()) {
      // Set before the bind, where it counts.
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), 0), 1);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on " + HOST, e);
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
