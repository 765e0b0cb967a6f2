package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.kafka.testkit.KafkaBroker;
import dev.sluice.receiver.otlp.OtlpReceiver;
import dev.sluice.testkit.Await;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Kafka tier end to end, every part real: the OpenTelemetry Java SDK sends to Sluice A (OTLP
 * in, {@code kafka} out with {@code partition_traces_by_id} and {@code acks: all}), a broker holds
 * the topic in 4 partitions, Sluice B ({@code kafka} in, OTLP out) reads it as a consumer group and
 * sends to a protobuf-java gRPC sink.
 *
 * <p>The SDK also sends every span straight to a second sink, so what it sent is known as protobuf:
 * each span must arrive at B's sink equal to it, field for field, under the same resource and
 * scope. The partitions are read from the topic itself by a side consumer that assigns every
 * partition and has no group, so it neither joins B's group nor moves its offsets: every span of a
 * trace must have been in records of one partition, and B's group must have committed the end of
 * every partition.
 */
class KafkaTierEndToEndTest {
  private static final int PARTITIONS = 4;
  private static final int TRACES = 120;
  private static final int SPANS_PER_TRACE = 6;
  private static final int SPANS = TRACES * SPANS_PER_TRACE;
  private static final String TOPIC = "tier_spans";
  private static final String GROUP = "tier-b";
  private static final int DELIVERY_TIMEOUT_SECONDS = 60;
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

  @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker(PARTITIONS);

  /** One span as it was exported: with the resource and scope it travelled under. */
  record Delivered(
      Resource resource, InstrumentationScope scope, io.opentelemetry.proto.trace.v1.Span span) {}

  @Test
  void everySpanCrossesTheTierIntactAndEachTraceThroughOnePartition() throws Exception {
    BROKER.createTopic(TOPIC, PARTITIONS);
    try (OtlpSink reference = OtlpSink.start();
        OtlpSink sink = OtlpSink.start()) {
      Collector b = TestCollectors.start(collectorB(sink.endpoint()), Collector.Options.defaults());
      Collector a = null;
      try {
        a = TestCollectors.start(collectorA(), Collector.Options.defaults());
        int port = ((OtlpReceiver) a.receiver(ComponentId.parse("otlp"))).grpcPort();
        emit("http://127.0.0.1:" + port, "http://" + reference.endpoint());
        assertThat(reference.spans()).isEqualTo(SPANS);
        assertThat(
                Await.within(
                    Duration.ofSeconds(DELIVERY_TIMEOUT_SECONDS), () -> sink.spans() >= SPANS))
            .as("spans at B's sink: %d of %d", sink.spans(), SPANS)
            .isTrue();

        Map<String, Delivered> sent = bySpanId(reference.traces());
        Map<String, Delivered> arrived = bySpanId(sink.traces());
        assertThat(sent).hasSize(SPANS);
        assertThat(arrived).isEqualTo(sent);

        Map<String, Set<Integer>> partitionsByTrace = partitionsByTrace();
        assertThat(partitionsByTrace)
            .hasSize(TRACES)
            .allSatisfy((trace, partitions) -> assertThat(partitions).hasSize(1));
        // 120 traces over 4 partitions: every partition carried some, so B read them all.
        assertThat(partitionsByTrace.values().stream().flatMap(Set::stream).distinct().count())
            .isEqualTo(PARTITIONS);
        Await.until(
            "B's group committed the end of every partition",
            KafkaTierEndToEndTest::groupCommittedEverything);
      } finally {
        if (a != null) {
          a.shutdown(TimeUnit.SECONDS.toNanos(10));
        }
        b.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  private static Map<String, Delivered> bySpanId(List<ExportTraceServiceRequest> requests) {
    Map<String, Delivered> spans = new HashMap<>();
    for (ExportTraceServiceRequest request : requests) {
      for (ResourceSpans resource : request.getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (io.opentelemetry.proto.trace.v1.Span span : scope.getSpansList()) {
            Delivered before =
                spans.put(
                    HexFormat.of().formatHex(span.getSpanId().toByteArray()),
                    new Delivered(resource.getResource(), scope.getScope(), span));
            assertThat(before).as("span %s delivered twice", span.getName()).isNull();
          }
        }
      }
    }
    return spans;
  }

  /**
   * The partitions whose records held each trace's spans, read from the topic by a consumer that
   * assigns every partition and has no group, until every span was seen or the timeout passed.
   */
  private static Map<String, Set<Integer>> partitionsByTrace() throws Exception {
    Map<String, Set<Integer>> partitions = new HashMap<>();
    int spans = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = BROKER.consumer(Map.of())) {
      List<TopicPartition> assigned =
          consumer.partitionsFor(TOPIC, READ_TIMEOUT).stream()
              .map(info -> new TopicPartition(TOPIC, info.partition()))
              .toList();
      consumer.assign(assigned);
      consumer.seekToBeginning(assigned);
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      while (spans < SPANS && System.nanoTime() - deadline < 0) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL_INTERVAL)) {
          for (ResourceSpans resource :
              ExportTraceServiceRequest.parseFrom(record.value()).getResourceSpansList()) {
            for (ScopeSpans scope : resource.getScopeSpansList()) {
              for (io.opentelemetry.proto.trace.v1.Span span : scope.getSpansList()) {
                partitions
                    .computeIfAbsent(
                        HexFormat.of().formatHex(span.getTraceId().toByteArray()),
                        t -> new HashSet<>())
                    .add(record.partition());
                spans++;
              }
            }
          }
        }
      }
    }
    assertThat(spans).as("spans in the topic").isEqualTo(SPANS);
    return partitions;
  }

  private static boolean groupCommittedEverything() {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BROKER.bootstrapServers()))) {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get();
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (int p = 0; p < PARTITIONS; p++) {
        latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
      }
      var ends = admin.listOffsets(latest).all().get();
      return ends.entrySet().stream()
          .allMatch(
              end ->
                  committed.containsKey(end.getKey())
                      && committed.get(end.getKey()).offset() == end.getValue().offset());
    } catch (Exception e) {
      return false;
    }
  }

  private static String collectorA() {
    return String.join(
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
  }

  private static String collectorB(String sink) {
    return String.join(
        "\n",
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
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [kafka]",
        "      processors: [batch]",
        "      exporters: [otlp]",
        "");
  }

  /**
   * Sends the traces through the SDK, to A and straight to the reference sink, and returns once it
   * has exported them. Spans carry attributes of several types, events, kinds and statuses.
   */
  private static void emit(String collectorA, String reference) {
    io.opentelemetry.sdk.resources.Resource resource =
        io.opentelemetry.sdk.resources.Resource.getDefault()
            .merge(
                io.opentelemetry.sdk.resources.Resource.create(
                    Attributes.of(AttributeKey.stringKey("service.name"), "kafka-tier")));
    SdkTracerProvider tracerProvider =
        SdkTracerProvider.builder()
            .setResource(resource)
            .addSpanProcessor(processor(collectorA))
            .addSpanProcessor(processor(reference))
            .build();
    Tracer tracer = tracerProvider.get("tier.tracer", "2.1.0");
    for (int t = 0; t < TRACES; t++) {
      Span root =
          tracer
              .spanBuilder("trace-" + t)
              .setSpanKind(SpanKind.SERVER)
              .setAttribute("trace.index", t)
              .setAttribute("http.route", "/orders/{id}")
              .startSpan();
      for (int s = 1; s < SPANS_PER_TRACE; s++) {
        Span child =
            tracer
                .spanBuilder("trace-" + t + "-span-" + s)
                .setParent(Context.root().with(root))
                .setSpanKind(SpanKind.CLIENT)
                .setAttribute("span.index", s)
                .setAttribute("db.ok", s % 2 == 0)
                .setAttribute("ratio", s / 8.0)
                .startSpan();
        child.addEvent("query", Attributes.of(AttributeKey.longKey("rows"), (long) s * t));
        if (s == SPANS_PER_TRACE - 1) {
          child.setStatus(StatusCode.ERROR, "timeout");
        }
        child.end();
      }
      root.end();
    }
    tracerProvider.forceFlush().join(30, TimeUnit.SECONDS);
    tracerProvider.shutdown().join(30, TimeUnit.SECONDS);
  }

  private static BatchSpanProcessor processor(String endpoint) {
    return BatchSpanProcessor.builder(OtlpGrpcSpanExporter.builder().setEndpoint(endpoint).build())
        .setMaxQueueSize(SPANS)
        .setMaxExportBatchSize(200)
        .build();
  }
}
