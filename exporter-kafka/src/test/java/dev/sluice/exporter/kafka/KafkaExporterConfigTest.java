package dev.sluice.exporter.kafka;

import static dev.sluice.exporter.kafka.TestExporters.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code kafka} exporter's keys, bound and validated from YAML as the collector does it. */
class KafkaExporterConfigTest {
  @Test
  void takesTheCollectorsDefaults() throws ConfigException {
    KafkaExporterConfig config = config("");

    assertThat(config.brokers()).containsExactly("localhost:9092");
    assertThat(config.clientId()).isEqualTo("otel-collector");
    assertThat(config.tls()).isNull();
    assertThat(config.auth().sasl()).isNull();
    assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.sendingQueue()).isEqualTo(QueueConfig.DEFAULT);
    assertThat(config.retryOnFailure()).isEqualTo(RetryConfig.DEFAULT);
    assertThat(config.traces())
        .isEqualTo(new KafkaExporterConfig.SignalConfig("otlp_spans", "otlp_proto"));
    assertThat(config.metrics())
        .isEqualTo(new KafkaExporterConfig.SignalConfig("otlp_metrics", "otlp_proto"));
    assertThat(config.logs())
        .isEqualTo(new KafkaExporterConfig.SignalConfig("otlp_logs", "otlp_proto"));
    assertThat(config.partitionTracesById()).isFalse();
    assertThat(config.producer())
        .isEqualTo(new ProducerSettings(1_000_000, "1", "none", 0, Duration.ofMillis(10)));
  }

  @Test
  void bindsEveryKey() throws ConfigException {
    KafkaExporterConfig config =
        config(
            String.join(
                "\n",
                "brokers: [k1:9092, k2:9093]",
                "client_id: agent-7",
                "protocol_version: 2.1.0",
                "timeout: 10s",
                "tls:",
                "  ca_file: /etc/ca.pem",
                "auth:",
                "  sasl:",
                "    mechanism: SCRAM-SHA-256",
                "    username: svc",
                "    password: secret",
                "traces: {topic: spans, encoding: otlp_json}",
                "logs: {topic: app_logs}",
                "partition_traces_by_id: true",
                "partition_metrics_by_resource_attributes: true",
                "partition_logs_by_resource_attributes: true",
                "producer:",
                "  max_message_bytes: 500000",
                "  required_acks: all",
                "  compression: zstd",
                "  flush_max_messages: 100",
                "  linger: 25ms",
                "sending_queue: {num_consumers: 4}",
                "retry_on_failure: {enabled: false}"));

    assertThat(config.brokers()).containsExactly("k1:9092", "k2:9093");
    assertThat(config.tls().caFile()).isEqualTo("/etc/ca.pem");
    assertThat(config.auth().sasl().mechanism()).isEqualTo("SCRAM-SHA-256");
    assertThat(config.traces().encoding()).isEqualTo("otlp_json");
    assertThat(config.logs())
        .isEqualTo(new KafkaExporterConfig.SignalConfig("app_logs", "otlp_proto"));
    assertThat(config.partitionTracesById()).isTrue();
    assertThat(config.producer().acks()).isEqualTo("all");
    assertThat(config.producer().linger()).isEqualTo(Duration.ofMillis(25));
    assertThat(config.sendingQueue().numConsumers()).isEqualTo(4);
    assertThat(config.retryOnFailure().enabled()).isFalse();
  }

  @Test
  void mapsTheProducerSectionToTheJavaClientsSettings() throws Exception {
    KafkaExporterConfig config =
        config(
            "timeout: 3s\nproducer: {required_acks: -1, compression: lz4, linger: 20ms,"
                + " max_message_bytes: 200000}");

    Properties properties = KafkaExporter.producerProperties(config);

    assertThat(properties)
        .containsEntry("acks", "all")
        .containsEntry("enable.idempotence", "true")
        .containsEntry("compression.type", "lz4")
        .containsEntry("linger.ms", "20")
        .containsEntry(
            "max.request.size", Integer.toString(200_000 + KafkaExporter.RECORD_OVERHEAD_BYTES))
        .containsEntry("request.timeout.ms", "3000")
        .containsEntry("delivery.timeout.ms", "3020")
        .containsEntry("max.block.ms", "3000");
    properties.put("key.serializer", ByteArraySerializer.class.getName());
    properties.put("value.serializer", ByteArraySerializer.class.getName());
    assertThat(new ProducerConfig(properties).getString("acks")).isEqualTo("-1");
  }

  @Test
  void leaderOnlyAcksTurnIdempotenceOff() throws Exception {
    Properties properties = KafkaExporter.producerProperties(config(""));

    assertThat(properties).containsEntry("acks", "1").containsEntry("enable.idempotence", "false");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "auth: {sasl: {mechanism: GSSAPI, username: u, password: p}}|auth.sasl.mechanism|GSSAPI",
        "auth: {sasl: {mechanism: PLAIN, username: u}}|auth.sasl.password|required",
        "producer: {compression: brotli}|producer.compression|brotli",
        "producer: {required_acks: 2}|producer.required_acks|all",
        "producer: {max_message_bytes: 10}|producer.max_message_bytes|at least",
        "traces: {encoding: jaeger_proto}|traces.encoding|jaeger_proto",
        "logs: {topic: ''}|logs.topic|empty",
        "tls: {insecure_skip_verify: true}|tls.insecure_skip_verify|ca_file",
        "brokers: []|brokers|at least one",
        "timeout: 0s|timeout|positive",
        "record_partitioner: {round_robin: {}}|record_partitioner|",
      })
  void reportsAnInvalidValueAtItsKey(String yaml, String key, String message) {
    assertThatThrownBy(() -> config(yaml))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e ->
                assertThat(e.problems())
                    .anySatisfy(
                        problem -> {
                          assertThat(problem.path()).isEqualTo(key);
                          assertThat(problem.message()).contains(message == null ? "" : message);
                          assertThat(problem.location().line()).isEqualTo(1);
                        }));
  }

  @Test
  void reportsEveryProblemAtOnce() {
    assertThatThrownBy(
            () ->
                config(
                    "client_id: ''\nproducer: {compression: brotli, linger: -1s}\nmetrics: {encoding: x}"))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e ->
                assertThat(e.problems())
                    .extracting(ConfigProblem::path)
                    .containsAll(
                        List.of(
                            "client_id",
                            "producer.compression",
                            "producer.linger",
                            "metrics.encoding")));
  }
}
