package dev.sluice.receiver.kafka;

import java.time.Duration;
import java.util.List;

/** The receiver's configuration for tests: the defaults, with the keys a test sets. */
final class TestConfig {
  List<String> brokers = List.of("127.0.0.1:9092");
  KafkaReceiverConfig.SignalTopics traces = KafkaReceiverConfig.DEFAULT.traces();
  KafkaReceiverConfig.SignalTopics metrics = KafkaReceiverConfig.DEFAULT.metrics();
  KafkaReceiverConfig.SignalTopics logs = KafkaReceiverConfig.DEFAULT.logs();
  String encoding = KafkaReceiverConfig.OTLP_PROTO;
  String groupId = "sluice-test";
  KafkaReceiverConfig.InitialOffset initialOffset = KafkaReceiverConfig.InitialOffset.EARLIEST;
  KafkaReceiverConfig.Autocommit autocommit =
      new KafkaReceiverConfig.Autocommit(false, Duration.ofSeconds(1));
  KafkaReceiverConfig.HeaderExtraction headers =
      new KafkaReceiverConfig.HeaderExtraction(false, List.of());
  long maxPendingBytes = KafkaReceiverConfig.DEFAULT.maxPendingBytes();
  int maxPollRecords = KafkaReceiverConfig.DEFAULT.maxPollRecords();

  static KafkaReceiverConfig.SignalTopics topics(String... names) {
    return new KafkaReceiverConfig.SignalTopics(List.of(names), List.of(), "");
  }

  TestConfig traces(String... names) {
    traces = topics(names);
    return this;
  }

  KafkaReceiverConfig build() {
    KafkaReceiverConfig d = KafkaReceiverConfig.DEFAULT;
    return new KafkaReceiverConfig(
        brokers,
        "sluice-test",
        "",
        null,
        d.auth(),
        traces,
        metrics,
        logs,
        encoding,
        groupId,
        initialOffset,
        Duration.ofSeconds(6),
        Duration.ofMillis(500),
        autocommit,
        d.messageMarking(),
        headers,
        d.minFetchSize(),
        d.defaultFetchSize(),
        d.maxFetchSize(),
        Duration.ofMillis(50),
        maxPendingBytes,
        maxPollRecords);
  }
}
