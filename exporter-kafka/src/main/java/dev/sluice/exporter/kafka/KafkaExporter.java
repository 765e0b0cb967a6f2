package dev.sluice.exporter.kafka;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.kafka.KafkaClientLogging;
import dev.sluice.kafka.KafkaEncoding;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import java.io.IOException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes each batch to its signal's topic as {@code Export*ServiceRequest} records through one
 * Kafka producer shared by the sending threads. Records are cut to fit {@code
 * producer.max_message_bytes} ({@link RecordSplitter}); with a partitioning switch on, a batch is
 * first grouped per trace ID or per resource ({@link KeyedParts}) and each group is keyed. An
 * export answers success only once every record was acknowledged at {@code producer.required_acks}
 * ({@link Delivery}).
 *
 * <p>Items dropped because one alone exceeds the limit are counted ({@code
 * sluice_exporter_kafka_oversized_dropped_items}) and logged at most every {@link
 * #LOG_INTERVAL_MILLIS}; the export then answers success with those items rejected.
 */
final class KafkaExporter implements Exporter {
  static final long LOG_INTERVAL_MILLIS = 10_000;

  /**
   * Room for the record batch header and one record's framing on top of key and value, so that a
   * record of {@code max_message_bytes} passes the client's own size check.
   */
  static final int RECORD_OVERHEAD_BYTES = 1024;

  /** The client's batch size for small records (keyed ones, one per trace), capped by the limit. */
  static final int BATCH_BYTES = 256 * 1024;

  private final KafkaExporterConfig config;
  private final Logger logger;
  private final RateLimitedLog oversizeLog;
  private final RateLimitedLog failureLog;
  private final ConcurrentLinkedQueue<ExportState> states = new ConcurrentLinkedQueue<>();
  private final MetricRegistry.Counter sentRecords;
  private final MetricRegistry.Counter sentBytes;
  private final MetricRegistry.Counter oversizedItems;
  private final MetricRegistry.Counter failedSends;
  private volatile Producer<byte[], byte[]> producer;

  KafkaExporter(ComponentSettings settings, KafkaExporterConfig config) {
    this.config = config;
    this.logger = settings.logger();
    this.oversizeLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
    this.failureLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
    String id = settings.id().toString();
    MetricRegistry metrics = settings.metrics();
    sentRecords =
        metrics.counter(
            "sluice_exporter_kafka_sent_records",
            "Records handed to the Kafka producer",
            "exporter",
            id);
    sentBytes =
        metrics.counter(
            "sluice_exporter_kafka_sent_bytes",
            "Bytes of record values handed to the Kafka producer, before compression",
            "exporter",
            id);
    oversizedItems =
        metrics.counter(
            "sluice_exporter_kafka_oversized_dropped_items",
            "Spans, log records or data points dropped because one alone exceeds"
                + " producer.max_message_bytes",
            "exporter",
            id);
    failedSends =
        metrics.counter(
            "sluice_exporter_kafka_failed_sends",
            "Exports the brokers did not acknowledge in full (each answered retryable or permanent)",
            "exporter",
            id);
  }

  @Override
  public void start() throws IOException {
    KafkaClientLogging.init();
    producer =
        new KafkaProducer<>(
            producerProperties(config), new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** The producer's properties: the connection's, then the {@code producer} section's. */
  static Properties producerProperties(KafkaExporterConfig config) throws IOException {
    ProducerSettings settings = config.producer();
    long timeoutMillis = config.timeout().toMillis();
    long lingerMillis = settings.linger().toMillis();
    Properties properties = config.connection().clientProperties(config.timeout());
    properties.put(ProducerConfig.ACKS_CONFIG, settings.acks());
    // Idempotence needs acks=all; with fewer acks the client would refuse to start.
    properties.put(
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString("all".equals(settings.acks())));
    properties.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, settings.compression());
    properties.put(ProducerConfig.LINGER_MS_CONFIG, Long.toString(lingerMillis));
    properties.put(
        ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
        Integer.toString(settings.maxMessageBytes() + RECORD_OVERHEAD_BYTES));
    properties.put(
        ProducerConfig.BATCH_SIZE_CONFIG,
        Integer.toString(Math.min(BATCH_BYTES, settings.maxMessageBytes())));
    // A record the brokers did not take within the timeout fails (retryably) instead of staying
    // in the client's buffer to arrive after the export was answered and retried.
    properties.put(
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(timeoutMillis + lingerMillis));
    properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(timeoutMillis));
    return properties;
  }

  @Override
  public ExportResult export(Batch batch, long deadlineNanos) throws InterruptedException {
    Producer<byte[], byte[]> current = producer;
    if (current == null) {
      return ExportResult.retryable("the kafka exporter is not running", 0);
    }
    Signal signal = batch.signal();
    KafkaExporterConfig.SignalConfig target = config.signal(signal);
    ExportState state = states.poll();
    if (state == null) {
      state = new ExportState(config.producer().maxMessageBytes());
    }
    try {
      state.begin(current, target.topic(), KafkaEncoding.named(target.encoding()));
      if (config.keyed(signal)) {
        state.parts.send(batch, state.splitter, state.delivery);
      } else if (!state.splitter.sendWhole(batch, null, state.delivery)) {
        state.splitter.sendSplit(KeyedParts.copyOf(batch), null, state.delivery);
      }
      ExportResult result = state.delivery.await(deadlineNanos);
      sentRecords.add(state.delivery.records());
      sentBytes.add(state.delivery.valueBytes());
      return account(result, state.splitter, signal, target.topic());
    } catch (KafkaException e) {
      failedSends.increment();
      failureLog.log("Sending to " + target.topic() + " failed: " + e);
      return ExportResult.retryable(e.toString(), 0);
    } finally {
      state.end();
      states.offer(state);
    }
  }

  private ExportResult account(
      ExportResult result, RecordSplitter splitter, Signal signal, String topic) {
    if (result.outcome() != ExportResult.Outcome.SUCCESS) {
      failedSends.increment();
      failureLog.log(result.message());
      return result;
    }
    long dropped = splitter.droppedUnits();
    if (dropped == 0) {
      return result;
    }
    oversizedItems.add(dropped);
    String message =
        dropped
            + " "
            + signal.unitName()
            + " dropped: each alone encodes to more than producer.max_message_bytes ("
            + config.producer().maxMessageBytes()
            + " bytes; the largest was "
            + splitter.largestDroppedBytes()
            + ") and cannot be written to "
            + topic;
    oversizeLog.log(message);
    return ExportResult.partialSuccess(dropped, message);
  }

  /** Closes the producer, which sends what it holds until {@code deadlineNanos}. */
  @Override
  public void shutdown(long deadlineNanos) {
    Producer<byte[], byte[]> current = producer;
    producer = null;
    if (current != null) {
      long remainingNanos = Math.max(0, deadlineNanos - System.nanoTime());
      current.close(Duration.ofNanos(remainingNanos));
    }
  }

  /** Oversized items dropped so far. */
  long oversizedItems() {
    return oversizedItems.get();
  }

  /** Records handed to the producer so far. */
  long sentRecords() {
    return sentRecords.get();
  }

  /** What one sending thread uses for one export; pooled. */
  private static final class ExportState {
    final RecordEncoder encoder = new RecordEncoder();
    final RecordSplitter splitter;
    final Delivery delivery = new Delivery();
    final KeyedParts parts = new KeyedParts();

    ExportState(int maxMessageBytes) {
      splitter = new RecordSplitter(encoder, maxMessageBytes);
    }

    void begin(Producer<byte[], byte[]> producer, String topic, KafkaEncoding encoding) {
      splitter.begin(encoding);
      delivery.begin(producer, topic);
    }

    void end() {
      encoder.release();
      parts.release();
    }
  }
}
