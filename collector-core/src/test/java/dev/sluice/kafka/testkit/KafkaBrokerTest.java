package dev.sluice.kafka.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class KafkaBrokerTest {
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(20);

  @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker();

  @Test
  void keepsRecordsAcrossStopAndStartOnTheSameAddress() throws Exception {
    BROKER.createTopic("kept", 2);
    String address = BROKER.bootstrapServers();
    RecordMetadata sent = send("kept", "trace-1", "first");
    assertThat(sent.partition()).isBetween(0, 1);

    assertThat(values(BROKER.readFromBeginning("kept", 1, READ_TIMEOUT))).containsExactly("first");

    BROKER.stop();
    assertThat(BROKER.isRunning()).isFalse();
    BROKER.start();

    assertThat(BROKER.bootstrapServers()).isEqualTo(address);
    List<ConsumerRecord<byte[], byte[]>> again = BROKER.readFromBeginning("kept", 1, READ_TIMEOUT);
    assertThat(values(again)).containsExactly("first");
    assertThat(again.get(0).partition()).isEqualTo(sent.partition());
    assertThat(new String(again.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("trace-1");

    send("kept", "trace-2", "second");
    assertThat(values(BROKER.readFromBeginning("kept", 2, READ_TIMEOUT)))
        .containsExactlyInAnyOrder("first", "second");
  }

  @Test
  void createsTopicsWithTheRequestedPartitions() throws Exception {
    BROKER.createTopic("wide", 4);
    try (var consumer = BROKER.consumer(Map.of())) {
      assertThat(consumer.partitionsFor("wide", READ_TIMEOUT)).hasSize(4);
    }
  }

  private static RecordMetadata send(String topic, String key, String value) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = BROKER.producer(Map.of())) {
      return producer
          .send(
              new ProducerRecord<>(
                  topic,
                  key.getBytes(StandardCharsets.UTF_8),
                  value.getBytes(StandardCharsets.UTF_8)))
          .get(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private static List<String> values(List<ConsumerRecord<byte[], byte[]>> records) {
    return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
  }
}
