package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.kafka.testkit.KafkaBroker;
import dev.sluice.receiver.otlp.OtlpReceiver;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The real OpenTelemetry Java SDK sends to Sluice (otlp receiver -> batch -> kafka exporter with
 * partition_traces_by_id), and a plain Kafka consumer reads the topic back, parsing each record
 * with protobuf-java: every span arrives once with its attributes, resource and scope, each record
 * is keyed by the hex trace ID of all its spans, and each trace's spans share one partition.
 */
class KafkaExporterEndToEndTest {
  private static final int PARTITIONS = 4;
  private static final int TRACES = 200;
  private static final int SPANS_PER_TRACE = 5;
  private static final int SPANS = TRACES * SPANS_PER_TRACE;
  private static final String TOPIC = "e2e_spans";
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker(PARTITIONS);

  @Test
  void everySpanFromTheSdkArrivesOnceAndEachTraceOnOnePartition() throws Exception {
    BROKER.createTopic(TOPIC, PARTITIONS);
    String yaml =
        String.join(
            "\n",
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "        endpoint: 127.0.0.1:0",
            "processors:",
            "  batch:",
            "    timeout: 50ms",
            "exporters:",
            "  kafka:",
            "    brokers: [" + BROKER.bootstrapServers() + "]",
            "    partition_traces_by_id: true",
            "    traces:",
            "      topic: " + TOPIC,
            "    producer:",
            "      required_acks: all",
            "      compression: lz4",
            "service:",
            "  telemetry:",
            "    metrics:",
            "      level: none",
            "  pipelines:",
            "    traces:",
            "      receivers: [otlp]",
            "      processors: [batch]",
            "      exporters: [kafka]",
            "");
    Collector collector = TestCollectors.start(yaml, Collector.Options.defaults());
    try {
      int port = ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp"))).grpcPort();
      emit("http://127.0.0.1:" + port);
    } finally {
      collector.shutdown(TimeUnit.SECONDS.toNanos(15));
    }

    Map<String, Set<Integer>> partitionsByTrace = new HashMap<>();
    Map<String, Integer> seen = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> record : readSpans()) {
      String key = new String(record.key(), StandardCharsets.US_ASCII);
      for (ResourceSpans resource :
          ExportTraceServiceRequest.parseFrom(record.value()).getResourceSpansList()) {
        assertThat(resource.getResource().getAttributesList())
            .contains(
                KeyValue.newBuilder()
                    .setKey("service.name")
                    .setValue(
                        io.opentelemetry.proto.common.v1.AnyValue.newBuilder()
                            .setStringValue("kafka-e2e"))
                    .build());
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          assertThat(scope.getScope().getName()).isEqualTo("e2e.tracer");
          for (io.opentelemetry.proto.trace.v1.Span span : scope.getSpansList()) {
            String traceId = HexFormat.of().formatHex(span.getTraceId().toByteArray());
            assertThat(traceId).isEqualTo(key);
            assertThat(span.getAttributesList())
                .extracting(KeyValue::getKey)
                .contains("span.index", "trace.index");
            long index =
                span.getAttributesList().stream()
                    .filter(a -> a.getKey().equals("span.index"))
                    .findFirst()
                    .orElseThrow()
                    .getValue()
                    .getIntValue();
            assertThat(span.getName()).isEqualTo("span-" + index);
            seen.merge(span.getName(), 1, Integer::sum);
            partitionsByTrace
                .computeIfAbsent(traceId, t -> new HashSet<>())
                .add(record.partition());
          }
        }
      }
    }
    assertThat(seen).hasSize(SPANS).allSatisfy((name, count) -> assertThat(count).isEqualTo(1));
    assertThat(partitionsByTrace)
        .hasSize(TRACES)
        .allSatisfy((trace, partitions) -> assertThat(partitions).hasSize(1));
    // With 200 traces over 4 partitions, every partition has some.
    assertThat(partitionsByTrace.values().stream().flatMap(Set::stream).distinct().count())
        .isEqualTo(PARTITIONS);
  }

  /** Reads the topic from the beginning until every span was read, or the timeout passed. */
  private static List<ConsumerRecord<byte[], byte[]>> readSpans() throws Exception {
    List<ConsumerRecord<byte[], byte[]>> records = new java.util.ArrayList<>();
    int spans = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = BROKER.consumer(Map.of())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(TOPIC, READ_TIMEOUT).stream()
              .map(p -> new TopicPartition(TOPIC, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      while (spans < SPANS && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          records.add(record);
          for (ResourceSpans resource :
              ExportTraceServiceRequest.parseFrom(record.value()).getResourceSpansList()) {
            for (ScopeSpans scope : resource.getScopeSpansList()) {
              spans += scope.getSpansCount();
            }
          }
        }
      }
    }
    return records;
  }

  /** Sends the traces through the SDK and returns once it has exported them. */
  private static void emit(String endpoint) {
    Resource resource =
        Resource.getDefault()
            .merge(
                Resource.create(
                    Attributes.of(AttributeKey.stringKey("service.name"), "kafka-e2e")));
    SdkTracerProvider tracerProvider =
        SdkTracerProvider.builder()
            .setResource(resource)
            .addSpanProcessor(
                BatchSpanProcessor.builder(
                        OtlpGrpcSpanExporter.builder().setEndpoint(endpoint).build())
                    .setMaxQueueSize(SPANS)
                    .setMaxExportBatchSize(256)
                    .build())
            .build();
    Tracer tracer = tracerProvider.get("e2e.tracer", "1.0.0");
    int index = 0;
    for (int t = 0; t < TRACES; t++) {
      Span root =
          tracer
              .spanBuilder("span-" + index)
              .setAttribute("span.index", index)
              .setAttribute("trace.index", t)
              .startSpan();
      index++;
      for (int s = 1; s < SPANS_PER_TRACE; s++) {
        tracer
            .spanBuilder("span-" + index)
            .setParent(Context.root().with(root))
            .setAttribute("span.index", index)
            .setAttribute("trace.index", t)
            .startSpan()
            .end();
        index++;
      }
      root.end();
    }
    tracerProvider.forceFlush().join(30, TimeUnit.SECONDS);
    tracerProvider.shutdown().join(30, TimeUnit.SECONDS);
  }
}
