package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.kafka.testkit.KafkaBroker;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole daemon with the {@code kafka} receiver: a broker, records produced with a plain
 * producer (bytes made with protobuf-java), Sluice (kafka in, batch, OTLP out) and a protobuf-java
 * gRPC sink. Every span arrives intact and once, the malformed record is counted, and the group's
 * committed offsets reach the end of each partition.
 */
class KafkaReceiverEndToEndTest {
  @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker();

  private static final String TOPIC = "e2e_spans";
  private static final String GROUP = "e2e-group";
  private static final int PARTITIONS = 2;
  private static final int RECORDS = 40;
  private static final int SPANS_PER_RECORD = 25;

  @Test
  void everySpanProducedArrivesIntactAtTheOtlpSink() throws Exception {
    BROKER.createTopic(TOPIC, PARTITIONS);
    Map<Integer, Span> produced = new HashMap<>();
    try (KafkaProducer<byte[], byte[]> producer = BROKER.producer(Map.of())) {
      for (int r = 0; r < RECORDS; r++) {
        ExportTraceServiceRequest request =
            SequencedSpans.request("e2e", r * SPANS_PER_RECORD, SPANS_PER_RECORD);
        request.getResourceSpans(0).getScopeSpans(0).getSpansList().stream()
            .forEach(span -> produced.put(Integer.parseInt(span.getName()), span));
        producer.send(new ProducerRecord<>(TOPIC, r % PARTITIONS, null, request.toByteArray()));
        if (r == RECORDS / 2) {
          producer.send(
              new ProducerRecord<>(
                  TOPIC, 0, null, "a record of something else".getBytes(StandardCharsets.UTF_8)));
        }
      }
      producer.flush();
    }

    try (OtlpSink sink = OtlpSink.start()) {
      Collector collector =
          TestCollectors.start(config(sink.endpoint()), Collector.Options.defaults());
      try {
        assertThat(
                Await.within(
                    Duration.ofSeconds(60),
                    () -> sink.spans() >= (long) RECORDS * SPANS_PER_RECORD))
            .as("spans at the sink: %d", sink.spans())
            .isTrue();
        Map<Integer, Span> arrived = new HashMap<>();
        for (ExportTraceServiceRequest request : sink.traces()) {
          for (ResourceSpans resource : request.getResourceSpansList()) {
            assertThat(resource.getResource().getAttributes(0).getValue().getStringValue())
                .isEqualTo("e2e");
            for (ScopeSpans scope : resource.getScopeSpansList()) {
              for (Span span : scope.getSpansList()) {
                Span before = arrived.put(Integer.parseInt(span.getName()), span);
                assertThat(before).as("span %s arrived twice", span.getName()).isNull();
              }
            }
          }
        }
        assertThat(arrived).isEqualTo(produced);
        Await.until(
            "committed offsets add up to the records, the malformed one included",
            () -> committedTotal() == RECORDS + 1L);
        assertThat(TestCollectors.prometheus(collector))
            .contains("sluice_receiver_kafka_malformed_records_total{receiver=\"kafka\"} 1")
            .contains(
                "otelcol_receiver_accepted_spans_total{receiver=\"kafka\",transport=\"kafka\"} "
                    + RECORDS * SPANS_PER_RECORD);
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  private static long committedTotal() {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BROKER.bootstrapServers()))) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get();
      return offsets.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
    } catch (Exception e) {
      return -1;
    }
  }

  private static String config(String sink) {
    return String.join(
        "\n",
        List.of(
            "receivers:",
            "  kafka:",
            "    brokers: [" + BROKER.bootstrapServers() + "]",
            "    group_id: " + GROUP,
            "    initial_offset: earliest",
            "    session_timeout: 6s",
            "    heartbeat_interval: 1s",
            "    traces:",
            "      topics: [" + TOPIC + "]",
            "processors:",
            "  batch:",
            "    timeout: 50ms",
            "exporters:",
            "  otlp:",
            "    endpoint: " + sink,
            "    tls:",
            "      insecure: true",
            "service:",
            "  pipelines:",
            "    traces:",
            "      receivers: [kafka]",
            "      processors: [batch]",
            "      exporters: [otlp]",
            ""));
  }
}
