package dev.sluice.exporter.kafka;

import static dev.sluice.exporter.kafka.TestExporters.batch;
import static dev.sluice.exporter.kafka.TestExporters.deadline;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.util.JsonFormat;
import dev.sluice.component.ExportResult;
import dev.sluice.kafka.testkit.KafkaBroker;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.Signal;
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
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
