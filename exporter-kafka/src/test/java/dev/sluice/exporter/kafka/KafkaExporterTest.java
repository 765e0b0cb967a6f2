package dev.sluice.exporter.kafka;

import static dev.sluice.exporter.kafka.TestExporters.batch;
import static dev.sluice.exporter.kafka.TestExporters.deadline;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.util.JsonFormat;
import dev.sluice.component.ExportResult;
import dev.sluice.kafka.testkit.KafkaBroker;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.SequencedSpans;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The exporter against a real broker: what lands in the topic, read back with a plain consumer. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaExporterTest {
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(20);
  private static final int PARTITIONS = 4;

  @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker(PARTITIONS);

  @Test
  @Order(1)
  void writesABatchThatFitsAsOneExportTraceServiceRequest() throws Exception {
    ExportTraceServiceRequest request = SequencedSpans.request("checkout", 0, 50);
    KafkaExporter exporter =
        TestExporters.start(BROKER.bootstrapServers(), "traces: {topic: whole}");
    try {
      Batch batch = batch(Signal.TRACES, request);
      assertThat(exporter.export(batch, deadline(15))).isEqualTo(ExportResult.SUCCESS);
      batch.clear();
    } finally {
      exporter.shutdown(deadline(5));
    }

    List<ConsumerRecord<byte[], byte[]>> records =
        BROKER.readFromBeginning("whole", 1, READ_TIMEOUT);
    assertThat(records).hasSize(1);
    assertThat(records.get(0).key()).isNull();
    assertThat(ExportTraceServiceRequest.parseFrom(records.get(0).value())).isEqualTo(request);
  }

  @Test
  @Order(2)
  void writesOtlpJsonWhenTheSignalAsksForIt() throws Exception {
    ExportLogsServiceRequest request = logs("billing", 5);
    KafkaExporter exporter =
        TestExporters.start(
            BROKER.bootstrapServers(), "logs: {topic: json_logs, encoding: otlp_json}");
    try {
      Batch batch = batch(Signal.LOGS, request);
      assertThat(exporter.export(batch, deadline(15)).outcome())
          .isEqualTo(ExportResult.Outcome.SUCCESS);
      batch.clear();
    } finally {
      exporter.shutdown(deadline(5));
    }

    List<ConsumerRecord<byte[], byte[]>> records =
        BROKER.readFromBeginning("json_logs", 1, READ_TIMEOUT);
    assertThat(records).hasSize(1);
    String json = new String(records.get(0).value(), StandardCharsets.UTF_8);
    ExportLogsServiceRequest.Builder parsed = ExportLogsServiceRequest.newBuilder();
    JsonFormat.parser().merge(json, parsed);
    assertThat(parsed.build()).isEqualTo(request);
    assertThat(json).contains("\"logRecords\"");
  }

  @ParameterizedTest
  @Order(3)
  @CsvSource({"none,0", "gzip,1", "snappy,2", "lz4,3", "zstd,4"})
  void compressesRecordBatchesWithTheConfiguredCodec(String compression, int codec)
      throws Exception {
    String topic = "compressed_" + compression;
    BROKER.createTopic(topic, 1);
    ExportTraceServiceRequest request = SequencedSpans.request("api", 0, 20);
    KafkaExporter exporter =
        TestExporters.start(
            BROKER.bootstrapServers(),
            "traces: {topic: " + topic + "}\nproducer: {compression: " + compression + "}");
    try {
      Batch batch = batch(Signal.TRACES, request);
      assertThat(exporter.export(batch, deadline(15))).isEqualTo(ExportResult.SUCCESS);
      batch.clear();
    } finally {
      exporter.shutdown(deadline(5));
    }

    List<ConsumerRecord<byte[], byte[]>> records = BROKER.readFromBeginning(topic, 1, READ_TIMEOUT);
    assertThat(records).hasSize(1);
    assertThat(ExportTraceServiceRequest.parseFrom(records.get(0).value())).isEqualTo(request);
    assertThat(firstBatchCodec(BROKER.logDirectory().resolve(topic + "-0"))).isEqualTo(codec);
  }

  @Test
  @Order(4)
  void splitsABatchSoThatEveryRecordFitsMaxMessageBytes() throws Exception {
    int limit = 4096;
    ExportTraceServiceRequest request = SequencedSpans.request("api", 0, 300);
    KafkaExporter exporter =
        TestExporters.start(
            BROKER.bootstrapServers(),
            "traces: {topic: split}\nproducer: {max_message_bytes: " + limit + "}");
    try {
      Batch batch = batch(Signal.TRACES, request);
      assertThat(exporter.export(batch, deadline(15))).isEqualTo(ExportResult.SUCCESS);
      batch.clear();
    } finally {
      exporter.shutdown(deadline(5));
    }

    long expectedRecords = exporter.sentRecords();
    assertThat(expectedRecords).isGreaterThan(request.getSerializedSize() / limit);
    List<ConsumerRecord<byte[], byte[]>> records =
        BROKER.readFromBeginning("split", (int) expectedRecords, READ_TIMEOUT);
    assertThat(records).hasSize((int) expectedRecords);
    assertThat(records).allSatisfy(r -> assertThat(r.value().length).isLessThanOrEqualTo(limit));
    records.sort(
        (a, b) ->
            a.partition() != b.partition()
                ? Integer.compare(a.partition(), b.partition())
                : Long.compare(a.offset(), b.offset()));
    Set<String> names = new HashSet<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      names.addAll(RecordSplitterTest.names(List.of(record.value())));
    }
    assertThat(names).hasSize(300);
  }

  @Test
  @Order(5)
  void dropsAndCountsASpanTooLargeAloneAndDeliversTheRest() throws Exception {
    int limit = 4096;
    ExportTraceServiceRequest small = SequencedSpans.request("api", 0, 30);
    Span huge =
        small.getResourceSpans(0).getScopeSpans(0).getSpans(3).toBuilder()
            .setName("y".repeat(2 * limit))
            .build();
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                small.getResourceSpans(0).toBuilder()
                    .setScopeSpans(
                        0,
                        small.getResourceSpans(0).getScopeSpans(0).toBuilder().setSpans(3, huge)))
            .build();
    KafkaExporter exporter =
        TestExporters.start(
            BROKER.bootstrapServers(),
            "traces: {topic: oversized}\nproducer: {max_message_bytes: " + limit + "}");
    ExportResult result;
    try {
      Batch batch = batch(Signal.TRACES, request);
      result = exporter.export(batch, deadline(15));
      batch.clear();
    } finally {
      exporter.shutdown(deadline(5));
    }

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.SUCCESS);
    assertThat(result.rejectedUnits()).isEqualTo(1);
    assertThat(result.message()).contains("max_message_bytes");
    assertThat(exporter.oversizedItems()).isEqualTo(1);
    List<String> names = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record :
        BROKER.readFromBeginning("oversized", (int) exporter.sentRecords(), READ_TIMEOUT)) {
      names.addAll(RecordSplitterTest.names(List.of(record.value())));
    }
    assertThat(names).hasSize(29).doesNotContain("3");
  }

  @Test
  @Order(6)
  void keepsEveryTraceOnOnePartitionKeyedByItsHexTraceId() throws Exception {
    BROKER.createTopic("by_trace", PARTITIONS);
    byte[] known = HexFormat.of().parseHex("0af7651916cd43dd8448eb211c80319c");
    ExportTraceServiceRequest first = traces(known, 0, 12, 5);
    ExportTraceServiceRequest second = traces(known, 1, 12, 5);
    KafkaExporter exporter =
        TestExporters.start(
            BROKER.bootstrapServers(), "traces: {topic: by_trace}\npartition_traces_by_id: true");
    try {
      Batch batch = batch(Signal.TRACES, first);
      batch.addAll(batch(Signal.TRACES, second));
      assertThat(exporter.export(batch, deadline(15))).isEqualTo(ExportResult.SUCCESS);
      batch.clear();
    } finally {
      exporter.shutdown(deadline(5));
    }

    List<ConsumerRecord<byte[], byte[]>> records =
        BROKER.readFromBeginning("by_trace", 12, READ_TIMEOUT);
    assertThat(records).hasSize(12);
    Map<String, Set<Integer>> partitionsByTrace = new HashMap<>();
    int spans = 0;
    for (ConsumerRecord<byte[], byte[]> record : records) {
      String key = new String(record.key(), StandardCharsets.US_ASCII);
      assertThat(key).matches("[0-9a-f]{32}");
      assertThat(record.partition()).isEqualTo(GoPartitioning.partition(record.key(), PARTITIONS));
      for (ResourceSpans resource :
          ExportTraceServiceRequest.parseFrom(record.value()).getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            assertThat(HexFormat.of().formatHex(span.getTraceId().toByteArray())).isEqualTo(key);
            partitionsByTrace.computeIfAbsent(key, k -> new HashSet<>()).add(record.partition());
            spans++;
          }
        }
      }
    }
    assertThat(spans).isEqualTo(120);
    assertThat(partitionsByTrace).hasSize(12).allSatisfy((k, p) -> assertThat(p).hasSize(1));
    // Where the Collector's franz-go partitioner puts this key among 4 partitions.
    assertThat(partitionsByTrace.get("0af7651916cd43dd8448eb211c80319c")).containsExactly(3);
  }

  @Test
  @Order(7)
  void keysLogsPerResourceByTheCollectorsAttributeHash() throws Exception {
    BROKER.createTopic("by_resource", PARTITIONS);
    ExportLogsServiceRequest request =
        ExportLogsServiceRequest.newBuilder()
            .addResourceLogs(logs("checkout", 3).getResourceLogs(0))
            .addResourceLogs(logs("billing", 2).getResourceLogs(0))
            .addResourceLogs(logs("checkout", 4).getResourceLogs(0))
            .build();
    KafkaExporter exporter =
        TestExporters.start(
            BROKER.bootstrapServers(),
            "logs: {topic: by_resource}\npartition_logs_by_resource_attributes: true");
    try {
      Batch batch = batch(Signal.LOGS, request);
      assertThat(exporter.export(batch, deadline(15))).isEqualTo(ExportResult.SUCCESS);
      batch.clear();
    } finally {
      exporter.shutdown(deadline(5));
    }

    List<ConsumerRecord<byte[], byte[]>> records =
        BROKER.readFromBeginning("by_resource", 2, READ_TIMEOUT);
    assertThat(records).hasSize(2);
    Map<String, Integer> logsByKey = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> record : records) {
      ExportLogsServiceRequest parsed = ExportLogsServiceRequest.parseFrom(record.value());
      assertThat(record.key()).hasSize(16);
      assertThat(record.partition()).isEqualTo(GoPartitioning.partition(record.key(), PARTITIONS));
      logsByKey.merge(
          HexFormat.of().formatHex(record.key()),
          parsed.getResourceLogsList().stream()
              .mapToInt(r -> r.getScopeLogs(0).getLogRecordsCount())
              .sum(),
          Integer::sum);
    }
    // The Collector's pdatautil.MapHash of {service.name: checkout}.
    assertThat(logsByKey).containsEntry("831d0817d731c2054ac194e9ddcf7e5c", 7).hasSize(2);
  }

  /**
   * {@code traces} traces of {@code spansPerTrace} spans, half of each trace's spans in each of the
   * two requests ({@code part} 0 or 1), interleaved; trace 0 has the ID {@code known}.
   */
  private static ExportTraceServiceRequest traces(
      byte[] known, int part, int traces, int spansPerTrace) {
    ScopeSpans.Builder scope = ScopeSpans.newBuilder();
    for (int s = 0; s < spansPerTrace; s++) {
      for (int t = 0; t < traces; t++) {
        byte[] traceId = new byte[16];
        if (t == 0) {
          traceId = known.clone();
        } else {
          traceId[0] = (byte) t;
          traceId[15] = (byte) (31 * t + 7);
        }
        scope.addSpans(
            Span.newBuilder()
                .setTraceId(ByteString.copyFrom(traceId))
                .setSpanId(
                    ByteString.copyFrom(
                        new byte[] {1, 2, 3, 4, 5, 6, (byte) t, (byte) (s + 10 * part)}))
                .setName("t" + t + "-s" + s + "-p" + part));
      }
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(
                            KeyValue.newBuilder()
                                .setKey("service.name")
                                .setValue(AnyValue.newBuilder().setStringValue("api"))))
                .addScopeSpans(scope))
        .build();
  }

  @Test
  @Order(100)
  void answersRetryableWhileTheBrokerIsDownAndSucceedsOnceItIsBack() throws Exception {
    BROKER.createTopic("outage", 1);
    KafkaExporter exporter =
        TestExporters.start(
            BROKER.bootstrapServers(),
            "traces: {topic: outage}\ntimeout: 2s\nproducer: {required_acks: all}");
    try {
      Batch first = batch(Signal.TRACES, SequencedSpans.request("api", 0, 3));
      assertThat(exporter.export(first, deadline(15))).isEqualTo(ExportResult.SUCCESS);
      first.clear();

      BROKER.stop();
      Batch during = batch(Signal.TRACES, SequencedSpans.request("api", 3, 3));
      ExportResult down = exporter.export(during, deadline(3));
      during.clear();
      assertThat(down.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);

      BROKER.start();
      Batch after = batch(Signal.TRACES, SequencedSpans.request("api", 6, 3));
      ExportResult up = retryUntilSuccess(exporter, after, 30);
      after.clear();
      assertThat(up).isEqualTo(ExportResult.SUCCESS);
    } finally {
      exporter.shutdown(deadline(5));
    }

    List<String> names = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> record :
        BROKER.readFromBeginning("outage", 2, READ_TIMEOUT)) {
      for (ResourceSpans resource :
          ExportTraceServiceRequest.parseFrom(record.value()).getResourceSpansList()) {
        resource
            .getScopeSpansList()
            .forEach(s -> s.getSpansList().forEach(span -> names.add(span.getName())));
      }
    }
    assertThat(names).containsSubsequence("0", "1", "2").containsSubsequence("6", "7", "8");
  }

  /** Sends again, as the sending chain's retries would, until success or {@code seconds} pass. */
  private static ExportResult retryUntilSuccess(KafkaExporter exporter, Batch batch, int seconds)
      throws InterruptedException {
    long end = deadline(seconds);
    ExportResult result;
    do {
      result = exporter.export(batch, deadline(5));
    } while (result.outcome() == ExportResult.Outcome.RETRYABLE && System.nanoTime() < end);
    return result;
  }

  /**
   * The compression codec of the first record batch in a partition's first log segment: the low
   * three bits of the batch's attributes (Kafka's record batch format v2).
   */
  private static int firstBatchCodec(Path partitionDirectory) throws IOException {
    Path segment;
    try (Stream<Path> files = Files.list(partitionDirectory)) {
      segment = files.filter(f -> f.toString().endsWith(".log")).sorted().findFirst().orElseThrow();
    }
    try (InputStream in = Files.newInputStream(segment)) {
      DataInputStream data = new DataInputStream(in);
      data.readLong(); // base offset
      data.readInt(); // batch length
      data.readInt(); // partition leader epoch
      assertThat(data.readByte()).as("record batch magic").isEqualTo((byte) 2);
      data.readInt(); // crc
      return data.readShort() & 0x7;
    }
  }

  static ExportLogsServiceRequest logs(String service, int count) {
    ScopeLogs.Builder scope = ScopeLogs.newBuilder();
    for (int i = 0; i < count; i++) {
      scope.addLogRecords(
          LogRecord.newBuilder()
              .setTimeUnixNano(1_000L + i)
              .setSeverityText("INFO")
              .setBody(AnyValue.newBuilder().setStringValue("line " + i)));
    }
    return ExportLogsServiceRequest.newBuilder()
        .addResourceLogs(
            ResourceLogs.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(
                            KeyValue.newBuilder()
                                .setKey("service.name")
                                .setValue(AnyValue.newBuilder().setStringValue(service))))
                .addScopeLogs(scope))
        .build();
  }
}
