package dev.sluice.receiver.kafka;

import dev.sluice.component.ComponentId;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.ReceiverTelemetry;
import java.util.function.LongSupplier;

/**
 * The receiver's metrics: the Collector's {@code otelcol_receiver_accepted_*} and {@code
 * otelcol_receiver_refused_*} (transport {@code kafka}; a record refused and offered again counts
 * as refused each time), and Sluice's own per-record counts.
 */
final class KafkaReceiverMetrics {
  static final String TRANSPORT = "kafka";

  private final MetricRegistry metrics;
  private final String id;
  final ReceiverTelemetry telemetry;
  final MetricRegistry.Counter malformedRecords;
  final MetricRegistry.Counter refusedRecords;
  final MetricRegistry.Counter fetchPauses;

  KafkaReceiverMetrics(MetricRegistry metrics, ComponentId receiver, LongSupplier pendingBytes) {
    this.metrics = metrics;
    this.id = receiver.toString();
    telemetry = new ReceiverTelemetry(metrics, receiver, TRANSPORT);
    malformedRecords =
        metrics.counter(
            "sluice_receiver_kafka_malformed_records",
            "Kafka records skipped (and committed) because they are not valid OTLP requests.",
            "receiver",
            id);
    refusedRecords =
        metrics.counter(
            "sluice_receiver_kafka_refused_records",
            "Times the pipelines refused a Kafka record, which was then offered again.",
            "receiver",
            id);
    fetchPauses =
        metrics.counter(
            "sluice_receiver_kafka_fetch_pauses",
            "Times every partition was paused because max_pending_bytes were held.",
            "receiver",
            id);
    metrics.gauge(
        "sluice_receiver_kafka_pending_bytes",
        "Bytes of Kafka records fetched and not yet accepted by the pipelines.",
        pendingBytes,
        "receiver",
        id);
  }

  /** Records set aside in one partition: made on first use, as set-asides are rare. */
  MetricRegistry.Counter setAside(String topic, int partition) {
    return metrics.counter(
        "sluice_receiver_kafka_set_aside_records",
        "Kafka records set aside (and committed) because the pipelines kept refusing them on their"
            + " own while taking other records: larger than the memory they can free, or failing"
            + " them.",
        "receiver",
        id,
        "topic",
        topic,
        "partition",
        Integer.toString(partition));
  }
}
