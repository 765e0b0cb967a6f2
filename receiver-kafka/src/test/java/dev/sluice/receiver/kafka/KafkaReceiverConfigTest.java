package dev.sluice.receiver.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.kafka.KafkaAuthConfig;
import dev.sluice.kafka.SaslConfig;
import dev.sluice.pdata.Signal;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The configuration's defaults, checks, client properties and topic routes. */
class KafkaReceiverConfigTest {
  @Test
  void defaultsAreTheCollectorsAndValid() {
    KafkaReceiverConfig d = KafkaReceiverConfig.DEFAULT;
    assertThat(d.brokers()).containsExactly("localhost:9092");
    assertThat(d.clientId()).isEqualTo("otel-collector");
    assertThat(d.groupId()).isEqualTo("otel-collector");
    assertThat(d.traces().topics()).containsExactly("otlp_spans");
    assertThat(d.metrics().topics()).containsExactly("otlp_metrics");
    assertThat(d.logs().topics()).containsExactly("otlp_logs");
    assertThat(d.encoding()).isEqualTo("otlp_proto");
    assertThat(d.initialOffset()).isEqualTo(KafkaReceiverConfig.InitialOffset.LATEST);
    assertThat(d.sessionTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(d.heartbeatInterval()).isEqualTo(Duration.ofSeconds(3));
    assertThat(d.autocommit().enable()).isTrue();
    assertThat(d.autocommit().interval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(d.messageMarking().after()).isFalse();
    ConfigProblems problems = new ConfigProblems();
    d.validate(problems);
    assertThat(problems.all()).isEmpty();
  }

  @Test
  void clientNeverCommitsByItselfAndGetsTheGroupKeys() throws Exception {
    Properties p = KafkaReceiver.clientProperties(KafkaReceiverConfig.DEFAULT);
    assertThat(p)
        .containsEntry("enable.auto.commit", "false")
        .containsEntry("group.id", "otel-collector")
        .containsEntry("group.protocol", "classic")
        .containsEntry("auto.offset.reset", "latest")
        .containsEntry("session.timeout.ms", 10_000)
        .containsEntry("heartbeat.interval.ms", 3_000)
        .containsEntry("max.poll.records", 500)
        .containsEntry("fetch.max.bytes", KafkaReceiverConfig.DEFAULT_MAX_FETCH_BYTES)
        .containsEntry("max.partition.fetch.bytes", 1 << 20)
        .containsEntry("bootstrap.servers", "localhost:9092")
        .containsEntry("security.protocol", "PLAINTEXT");
  }

  @Test
  void tlsAndSaslComeFromTheSharedConnectionKeys() throws Exception {
    KafkaReceiverConfig d = KafkaReceiverConfig.DEFAULT;
    KafkaReceiverConfig secured =
        new KafkaReceiverConfig(
            d.brokers(),
            d.clientId(),
            d.protocolVersion(),
            TlsClientConfig.DEFAULT,
            new KafkaAuthConfig(new SaslConfig("SCRAM-SHA-512", "user", "secret", 0)),
            d.traces(),
            d.metrics(),
            d.logs(),
            d.encoding(),
            d.groupId(),
            d.initialOffset(),
            d.sessionTimeout(),
            d.heartbeatInterval(),
            d.autocommit(),
            d.messageMarking(),
            d.headerExtraction(),
            d.minFetchSize(),
            d.defaultFetchSize(),
            d.maxFetchSize(),
            d.maxFetchWait(),
            d.maxPendingBytes(),
            d.maxPollRecords());
    Properties p = KafkaReceiver.clientProperties(secured);
    assertThat(p)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry("enable.auto.commit", "false");
  }

  @Test
  void reportsEachBadKeyAtItsPath() {
    TestConfig config = new TestConfig();
    config.traces =
        new KafkaReceiverConfig.SignalTopics(List.of("^a[", ""), List.of("^("), "zipkin_proto");
    config.encoding = "raw";
    config.maxPendingBytes = 0;
    KafkaReceiverConfig built = config.build();
    ConfigProblems problems = new ConfigProblems();
    built.validate(problems);
    built.traces().validate(problems.under("traces"));
    assertThat(problems.all())
        .extracting(ConfigProblems.Problem::path)
        .contains(
            "encoding",
            "max_pending_bytes",
            "traces.topics[0]",
            "traces.topics[1]",
            "traces.exclude_topics[0]",
            "traces.encoding");
  }

  @Test
  void routesTopicsByNameAndPatternMinusExclusions() {
    TestConfig config = new TestConfig();
    config.traces =
        new KafkaReceiverConfig.SignalTopics(
            List.of("^spans-.*", "exact.spans"), List.of("spans-private", "^spans-tmp.*"), "");
    config.metrics = TestConfig.topics("otlp_metrics");
    config.logs = new KafkaReceiverConfig.SignalTopics(List.of("logs"), List.of(), "otlp_json");
    TopicRoutes routes = new TopicRoutes(config.build(), EnumSet.allOf(Signal.class));

    assertThat(routes.literalOnly()).isFalse();
    for (String topic : List.of("spans-a", "exact.spans", "otlp_metrics", "logs")) {
      assertThat(routes.pattern().matcher(topic).matches()).as(topic).isTrue();
    }
    for (String topic : List.of("spans-private", "spans-tmp1", "exactXspans", "other", "logs2")) {
      assertThat(routes.pattern().matcher(topic).matches()).as(topic).isFalse();
    }
    assertThat(routes.route("spans-a")).isEqualTo(new TopicRoutes.Route(Signal.TRACES, false));
    assertThat(routes.route("otlp_metrics"))
        .isEqualTo(new TopicRoutes.Route(Signal.METRICS, false));
    assertThat(routes.route("logs")).isEqualTo(new TopicRoutes.Route(Signal.LOGS, true));
    assertThat(routes.route("spans-private")).isNull();
  }

  @Test
  void subscribesToNamesOnlyForTheSignalsOfAPipeline() {
    TopicRoutes routes =
        new TopicRoutes(KafkaReceiverConfig.DEFAULT, EnumSet.of(Signal.TRACES, Signal.LOGS));
    assertThat(routes.literalOnly()).isTrue();
    assertThat(routes.topics()).containsExactly("otlp_spans", "otlp_logs");
    assertThat(routes.route("otlp_metrics")).isNull();
  }
}
