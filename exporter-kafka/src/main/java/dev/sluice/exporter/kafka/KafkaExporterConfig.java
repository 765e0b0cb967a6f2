package dev.sluice.exporter.kafka;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.Validatable;
import dev.sluice.kafka.KafkaAuthConfig;
import dev.sluice.kafka.KafkaConnection;
import dev.sluice.kafka.KafkaEncoding;
import dev.sluice.pdata.Signal;
import java.time.Duration;
import java.util.List;

/**
 * The {@code kafka} exporter's configuration, with the OpenTelemetry Collector's keys and defaults:
 * the connection at the top level ({@code brokers}, {@code client_id}, {@code protocol_version},
 * {@code tls}, {@code auth}), a topic and an encoding per signal, the partitioning switches, the
 * {@code producer} section, and the shared {@code timeout} (5 s), {@code sending_queue} (on) and
 * {@code retry_on_failure} (on).
 *
 * @param tls TLS to the brokers when present (even empty), unless {@code insecure: true}
 * @param partitionTracesById one record per trace, keyed by its trace ID in lower-case hex
 * @param partitionMetricsByResourceAttributes one record per resource, keyed by a hash of its
 *     attributes (the Collector's)
 * @param partitionLogsByResourceAttributes the same for logs
 */
public record KafkaExporterConfig(
    List<String> brokers,
    String clientId,
    String protocolVersion,
    @OptionalSection TlsClientConfig tls,
    KafkaAuthConfig auth,
    Duration timeout,
    QueueConfig sendingQueue,
    RetryConfig retryOnFailure,
    SignalConfig traces,
    SignalConfig metrics,
    SignalConfig logs,
    boolean partitionTracesById,
    boolean partitionMetricsByResourceAttributes,
    boolean partitionLogsByResourceAttributes,
    ProducerSettings producer)
    implements ExporterConfig {
  public static final KafkaExporterConfig DEFAULT =
      new KafkaExporterConfig(
          KafkaConnection.DEFAULT_BROKERS,
          KafkaConnection.DEFAULT_CLIENT_ID,
          "",
          null,
          KafkaAuthConfig.DEFAULT,
          Duration.ofSeconds(5),
          QueueConfig.DEFAULT,
          RetryConfig.DEFAULT,
          new SignalConfig("otlp_spans", "otlp_proto"),
          new SignalConfig("otlp_metrics", "otlp_proto"),
          new SignalConfig("otlp_logs", "otlp_proto"),
          false,
          false,
          false,
          ProducerSettings.DEFAULT);

  /**
   * Where one signal goes ({@code traces}, {@code metrics}, {@code logs}).
   *
   * @param topic the topic its records are written to
   * @param encoding {@code otlp_proto} or {@code otlp_json}
   */
  public record SignalConfig(String topic, String encoding) implements Validatable {
    @Override
    public void validate(ConfigProblems problems) {
      if (topic.isEmpty()) {
        problems.add("topic", "must not be empty");
      }
      KafkaEncoding.validate(encoding, "encoding", problems);
    }
  }

  /** The connection the producer uses. */
  KafkaConnection connection() {
    return new KafkaConnection(brokers, clientId, protocolVersion, tls, auth);
  }

  /** The topic and encoding of {@code signal}. */
  SignalConfig signal(Signal signal) {
    return switch (signal) {
      case TRACES -> traces;
      case METRICS -> metrics;
      case LOGS -> logs;
    };
  }

  /** Whether the records of {@code signal} are keyed (and so split per key). */
  boolean keyed(Signal signal) {
    return switch (signal) {
      case TRACES -> partitionTracesById;
      case METRICS -> partitionMetricsByResourceAttributes;
      case LOGS -> partitionLogsByResourceAttributes;
    };
  }

  @Override
  public void validate(ConfigProblems problems) {
    connection().validate(problems);
    if (timeout.isNegative() || timeout.isZero()) {
      problems.add("timeout", "must be positive: it bounds each send and the producer's waits");
    }
  }
}
