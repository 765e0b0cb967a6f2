package dev.sluice.receiver.kafka;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Receiver;
import dev.sluice.component.RequestConsumer;
import dev.sluice.kafka.KafkaClientLogging;
import dev.sluice.pdata.Signal;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The {@code kafka} receiver: one consumer in the configured group, on a thread of its own (a Kafka
 * consumer is single-threaded), that hands each record to the pipelines of its topic's signal and
 * commits an offset only once every record before it was accepted, skipped as malformed, or set
 * aside. See {@link PollLoop} for the delivery rules.
 */
public final class KafkaReceiver implements Receiver {
  /**
   * How long stopping waits for answers to records already offered, so that what the pipelines took
   * is committed and not read again after the restart; within the shutdown deadline.
   */
  static final long DRAIN_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

  /** How long one request to a broker may take: the Kafka client's own default. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private final ComponentSettings settings;
  private final KafkaReceiverConfig config;
  private final Map<Signal, RequestConsumer> consumers;
  private final Function<Properties, Consumer<byte[], byte[]>> clients;
  private final PollLoop.RetryLimits limits;
  private final Logger logger;
  private volatile PollLoop loop;
  private Thread thread;

  KafkaReceiver(
      ComponentSettings settings,
      KafkaReceiverConfig config,
      Map<Signal, RequestConsumer> consumers,
      Function<Properties, Consumer<byte[], byte[]>> clients,
      PollLoop.RetryLimits limits) {
    this.settings = settings;
    this.config = config;
    this.consumers = Map.copyOf(consumers);
    this.clients = clients;
    this.limits = limits;
    this.logger = settings.logger();
  }

  KafkaReceiver(
      ComponentSettings settings,
      KafkaReceiverConfig config,
      Map<Signal, RequestConsumer> consumers,
      Function<Properties, Consumer<byte[], byte[]>> clients) {
    this(settings, config, consumers, clients, PollLoop.RetryLimits.DEFAULT);
  }

  /** A receiver over a real {@link KafkaConsumer}. */
  KafkaReceiver(
      ComponentSettings settings,
      KafkaReceiverConfig config,
      Map<Signal, RequestConsumer> consumers) {
    this(settings, config, consumers, KafkaConsumer::new);
  }

  /**
   * The consumer's properties: the shared connection keys (brokers, client id, TLS, SASL), then the
   * group's. Sluice commits by itself, so the client never does.
   *
   * @throws IOException when a TLS file cannot be read
   */
  static Properties clientProperties(KafkaReceiverConfig config) throws IOException {
    Properties p = config.connection().clientProperties(REQUEST_TIMEOUT);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
    // The classic protocol: session_timeout and heartbeat_interval are the member's own there.
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
        config.initialOffset() == KafkaReceiverConfig.InitialOffset.EARLIEST
            ? "earliest"
            : "latest");
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) config.sessionTimeout().toMillis());
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) config.heartbeatInterval().toMillis());
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, config.maxPollRecords());
    p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, config.minFetchSize());
    p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, config.fetchMaxBytes());
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, config.defaultFetchSize());
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) config.maxFetchWait().toMillis());
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return p;
  }

  @Override
  public void start() throws IOException {
    TopicRoutes routes = new TopicRoutes(config, consumers.keySet());
    if (routes.isEmpty()) {
      logger.warning("no pipeline takes a signal that has topics here: nothing to read");
      return;
    }
    KafkaClientLogging.init();
    Consumer<byte[], byte[]> client = clients.apply(clientProperties(config));
    loop = new PollLoop(settings, config, limits, consumers, routes, client);
    thread = new Thread(loop, "sluice-kafka-" + settings.id());
    thread.setDaemon(true);
    thread.start();
    logger.info(
        "Kafka receiver reading "
            + (routes.literalOnly() ? routes.topics() : routes.pattern().pattern())
            + " from "
            + config.brokers()
            + " as group "
            + config.groupId());
  }

  @Override
  public void shutdown(long deadlineNanos) throws InterruptedException {
    PollLoop running = loop;
    if (running == null) {
      return;
    }
    long graceEnd = System.nanoTime() + DRAIN_GRACE_NANOS;
    running.stop(graceEnd - deadlineNanos < 0 ? graceEnd : deadlineNanos);
    long left = deadlineNanos - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.timedJoin(thread, left);
    }
    if (thread.isAlive()) {
      logger.warning("Kafka consumer still closing at the shutdown deadline");
    }
  }

  /** The loop, for tests; null before start. */
  PollLoop loop() {
    return loop;
  }
}
