package dev.sluice.receiver.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.kafka.testkit.KafkaBroker;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.MetricsText;
import dev.sluice.testkit.SequencedSpans;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The receiver against a real broker: records produced with a plain producer (bytes made with
 * protobuf-java) arrive in the pipeline, and the offsets the group commits are checked with an
 * admin client.
 */
class KafkaReceiverBrokerTest {
  @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker();

  private static final long WAIT_SECONDS = 30;
  private static final Duration WAIT = Duration.ofSeconds(WAIT_SECONDS);

  /** Checks that ask the broker (for committed offsets) are spaced out. */
  private static final Duration BROKER_POLL = Duration.ofMillis(50);

  private static KafkaProducer<byte[], byte[]> producer;
  private static Admin admin;

  private final List<KafkaReceiver> receivers = new ArrayList<>();
  private final MetricRegistry metrics = new MetricRegistry();

  @BeforeAll
  static void clients() {
    producer = BROKER.producer(Map.of());
    admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BROKER.bootstrapServers()));
  }

  @AfterAll
  static void closeClients() {
    producer.close();
    admin.close();
  }

  @AfterEach
  void stopReceivers() throws InterruptedException {
    for (KafkaReceiver receiver : receivers) {
      receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }
  }

  private KafkaReceiver start(TestConfig config, Map<Signal, RequestConsumer> pipelines)
      throws java.io.IOException {
    config.brokers = List.of(BROKER.bootstrapServers());
    KafkaReceiver receiver =
        new KafkaReceiver(
            new ComponentSettings(ComponentId.parse("kafka"), ComponentKind.RECEIVER, metrics),
            config.build(),
            pipelines);
    receiver.start();
    receivers.add(receiver);
    return receiver;
  }

  private static void send(String topic, byte[] value) throws Exception {
    producer.send(new ProducerRecord<>(topic, value)).get();
  }

  private static byte[] spans(int first, int count) {
    return SequencedSpans.request("svc", first, count).toByteArray();
  }

  private static List<Integer> spanNumbers(List<byte[]> requests) {
    return requests.stream().map(SequencedSpans::numbers).flatMap(List::stream).toList();
  }

  private static long committed(String group, String topic) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> offsets =
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    OffsetAndMetadata offset = offsets.get(new TopicPartition(topic, 0));
    return offset == null ? -1 : offset.offset();
  }

  @Test
  void recordsArriveAndAMalformedOneInTheMiddleIsCountedSkippedAndCommitted() throws Exception {
    String topic = "arrive";
    BROKER.createTopic(topic, 1);
    send(topic, spans(0, 2));
    send(topic, spans(2, 2));
    send(topic, "not a protobuf request".getBytes(StandardCharsets.UTF_8));
    send(topic, spans(4, 2));
    send(topic, spans(6, 2));
    TestPipeline pipeline = new TestPipeline();
    start(new TestConfig().traces(topic), Map.of(Signal.TRACES, pipeline));

    assertThat(pipeline.awaitAccepted(4, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(spanNumbers(pipeline.accepted())).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
    Await.until(
        "offset 5 committed", WAIT, BROKER_POLL, () -> committed("sluice-test", topic) == 5);
    assertThat(MetricsText.of(metrics))
        .contains("sluice_receiver_kafka_malformed_records_total{receiver=\"kafka\"} 1")
        .contains(
            "otelcol_receiver_accepted_spans_total{receiver=\"kafka\",transport=\"kafka\"} 8");
  }

  @Test
  void refusingPipelinePausesAndNothingIsSkippedOrCommittedEarly() throws Exception {
    String topic = "refusing";
    BROKER.createTopic(topic, 1);
    TestPipeline pipeline = new TestPipeline().refuseWhen(bytes -> true);
    TestConfig config = new TestConfig().traces(topic);
    config.groupId = "refusing-group";
    KafkaReceiver receiver = start(config, Map.of(Signal.TRACES, pipeline));
    send(topic, spans(0, 1));
    send(topic, spans(1, 1));
    send(topic, spans(2, 1));

    assertThat(pipeline.awaitOffered(4, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(500);
    assertThat(spanNumbers(pipeline.offered()))
        .as("the first record, offered again and again; the others wait behind it")
        .containsOnly(0);
    assertThat(committed("refusing-group", topic)).isLessThanOrEqualTo(0);
    assertThat(receiver.loop().heldBytes()).isPositive();

    pipeline.refuseWhen(bytes -> false);
    assertThat(pipeline.awaitAccepted(3, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(spanNumbers(pipeline.accepted())).containsExactly(0, 1, 2);
    Await.until(
        "offset 3 committed", WAIT, BROKER_POLL, () -> committed("refusing-group", topic) == 3);
  }

  @Test
  void stopsFetchingAtMaxPendingBytesAndResumes() throws Exception {
    String topic = "bounded";
    BROKER.createTopic(topic, 1);
    for (int i = 0; i < 20; i++) {
      send(topic, spans(i, 1));
    }
    TestPipeline pipeline = new TestPipeline().hold();
    TestConfig config = new TestConfig().traces(topic);
    config.groupId = "bounded-group";
    config.maxPollRecords = 2;
    config.maxPendingBytes = 3L * spans(10, 1).length;
    KafkaReceiver receiver = start(config, Map.of(Signal.TRACES, pipeline));

    assertThat(pipeline.awaitOffered(3, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    Await.until(
        "fetching paused",
        WAIT,
        BROKER_POLL,
        () ->
            MetricsText.of(metrics)
                .contains("sluice_receiver_kafka_fetch_pauses_total{receiver=\"kafka\"} 1"));
    // Time for a fetch past the bound, were one made.
    Thread.sleep(500);
    assertThat(pipeline.offered().size())
        .as("at most the bound plus one poll's records")
        .isBetween(3, 3 + config.maxPollRecords);
    assertThat(receiver.loop().heldBytes()).isGreaterThanOrEqualTo(config.maxPendingBytes);
    assertThat(MetricsText.of(metrics))
        .contains("sluice_receiver_kafka_fetch_pauses_total{receiver=\"kafka\"} 1");

    pipeline.release();
    assertThat(pipeline.awaitAccepted(20, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(spanNumbers(pipeline.accepted()))
        .containsExactlyElementsOf(java.util.stream.IntStream.range(0, 20).boxed().toList());
    Await.until(
        "offset 20 committed", WAIT, BROKER_POLL, () -> committed("bounded-group", topic) == 20);
  }

  @Test
  void regexTopicsWithExclusionsRouteEachTopicToItsSignal() throws Exception {
    for (String topic : List.of("rx.spans.a", "rx.spans.b", "rx.spans.skip", "rx.logs")) {
      BROKER.createTopic(topic, 1);
    }
    send("rx.spans.a", spans(0, 1));
    send("rx.spans.b", spans(1, 1));
    send("rx.spans.skip", spans(2, 1));
    send("rx.logs", logs("hello"));
    TestPipeline traces = new TestPipeline();
    TestPipeline logs = new TestPipeline();
    TestConfig config = new TestConfig();
    config.traces =
        new KafkaReceiverConfig.SignalTopics(
            List.of("^rx\\.spans\\..*"), List.of("rx.spans.skip"), "");
    config.logs = TestConfig.topics("rx.logs");
    config.groupId = "regex-group";
    start(config, Map.of(Signal.TRACES, traces, Signal.LOGS, logs));

    assertThat(traces.awaitAccepted(2, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(logs.awaitAccepted(1, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(500);
    assertThat(spanNumbers(traces.accepted())).containsExactlyInAnyOrder(0, 1);
    assertThat(ExportLogsServiceRequest.parseFrom(logs.accepted().get(0)))
        .isEqualTo(ExportLogsServiceRequest.parseFrom(logs("hello")));
    assertThat(committed("regex-group", "rx.spans.skip")).isEqualTo(-1);
  }

  private static byte[] logs(String body) {
    return ExportLogsServiceRequest.newBuilder()
        .addResourceLogs(
            ResourceLogs.newBuilder()
                .addScopeLogs(
                    ScopeLogs.newBuilder()
                        .addLogRecords(
                            LogRecord.newBuilder()
                                .setTimeUnixNano(1)
                                .setBody(AnyValue.newBuilder().setStringValue(body)))))
        .build()
        .toByteArray();
  }

  @Test
  void initialOffsetLatestSkipsWhatCameBeforeAndEarliestReadsIt() throws Exception {
    String topic = "initial";
    BROKER.createTopic(topic, 1);
    send(topic, spans(0, 1));
    TestPipeline latest = new TestPipeline();
    TestConfig latestConfig = new TestConfig().traces(topic);
    latestConfig.groupId = "latest-group";
    latestConfig.initialOffset = KafkaReceiverConfig.InitialOffset.LATEST;
    start(latestConfig, Map.of(Signal.TRACES, latest));
    // Until the group has joined and found the end, a record may land before its position.
    int next = 1;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (latest.accepted().isEmpty() && System.nanoTime() - deadline < 0) {
      send(topic, spans(next++, 1));
      latest.awaitAccepted(1, 300, TimeUnit.MILLISECONDS);
    }
    assertThat(latest.accepted()).isNotEmpty();
    assertThat(spanNumbers(latest.accepted())).doesNotContain(0);

    TestPipeline earliest = new TestPipeline();
    TestConfig earliestConfig = new TestConfig().traces(topic);
    earliestConfig.groupId = "earliest-group";
    start(earliestConfig, Map.of(Signal.TRACES, earliest));
    assertThat(earliest.awaitAccepted(next, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(spanNumbers(earliest.accepted()).get(0)).isZero();
  }

  @Test
  void headersBecomeResourceAttributes() throws Exception {
    String topic = "headers";
    BROKER.createTopic(topic, 1);
    ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, spans(0, 3));
    record.headers().add("tenant", "acme".getBytes(StandardCharsets.UTF_8));
    record.headers().add("ignored", "x".getBytes(StandardCharsets.UTF_8));
    producer.send(record).get();
    TestPipeline pipeline = new TestPipeline();
    TestConfig config = new TestConfig().traces(topic);
    config.groupId = "headers-group";
    config.headers = new KafkaReceiverConfig.HeaderExtraction(true, List.of("tenant", "absent"));
    start(config, Map.of(Signal.TRACES, pipeline));

    assertThat(pipeline.awaitAccepted(1, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    ExportTraceServiceRequest received =
        ExportTraceServiceRequest.parseFrom(pipeline.accepted().get(0));
    List<KeyValue> attributes = received.getResourceSpans(0).getResource().getAttributesList();
    assertThat(attributes)
        .extracting(KeyValue::getKey)
        .containsExactlyInAnyOrder("service.name", "kafka.header.tenant");
    assertThat(attributes)
        .filteredOn(kv -> kv.getKey().equals("kafka.header.tenant"))
        .extracting(kv -> kv.getValue().getStringValue())
        .containsExactly("acme");
    assertThat(SequencedSpans.numbers(pipeline.accepted().get(0))).containsExactly(0, 1, 2);
  }

  /**
   * OTLP/JSON of a request whose ids are all zero: protobuf-java's JSON, with the ids in hex as
   * OTLP/JSON writes them instead of base64.
   */
  private static byte[] otlpJson(ExportTraceServiceRequest request) throws Exception {
    return JsonFormat.printer()
        .print(request)
        .replace("\"" + BASE64_ZERO_TRACE_ID + "\"", "\"" + "0".repeat(32) + "\"")
        .replace("\"" + BASE64_ZERO_SPAN_ID + "\"", "\"" + "0".repeat(16) + "\"")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static final String BASE64_ZERO_TRACE_ID = "AAAAAAAAAAAAAAAAAAAAAA==";
  private static final String BASE64_ZERO_SPAN_ID = "AAAAAAAAAAA=";

  @Test
  void jsonRecordsAreDecodedToTheSameRequest() throws Exception {
    String topic = "json";
    BROKER.createTopic(topic, 1);
    ExportTraceServiceRequest request = SequencedSpans.request("json-svc", 0, 4);
    send(topic, otlpJson(request));
    send(topic, "{\"resourceSpans\": [".getBytes(StandardCharsets.UTF_8));
    send(topic, otlpJson(request));
    TestPipeline pipeline = new TestPipeline();
    TestConfig config = new TestConfig().traces(topic);
    config.groupId = "json-group";
    config.encoding = KafkaReceiverConfig.OTLP_JSON;
    start(config, Map.of(Signal.TRACES, pipeline));

    assertThat(pipeline.awaitAccepted(2, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(ExportTraceServiceRequest.parseFrom(pipeline.accepted().get(0))).isEqualTo(request);
    assertThat(ExportTraceServiceRequest.parseFrom(pipeline.accepted().get(1))).isEqualTo(request);
    Await.until("offset 3 committed", WAIT, BROKER_POLL, () -> committed("json-group", topic) == 3);
    assertThat(MetricsText.of(metrics))
        .contains("sluice_receiver_kafka_malformed_records_total{receiver=\"kafka\"} 1");
  }
}
