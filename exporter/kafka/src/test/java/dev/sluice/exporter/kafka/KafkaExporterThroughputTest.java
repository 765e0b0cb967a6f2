package dev.sluice.exporter.kafka;

import static dev.sluice.exporter.kafka.TestExporters.batch;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.component.ExportResult;
import dev.sluice.kafka.testkit.KafkaBroker;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.Signal;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A bounded loopback measurement of the Kafka path on the exporter side, not part of the default
 * suite: sending threads export the same batch of 1000 HTTP server spans (~430 bytes each, ten
 * attributes, random trace IDs) to a local broker until a span count or a time bound is reached,
 * and the CPU time of the sending threads and the producer's network thread is divided by the spans
 * sent. Run with
 *
 * <pre>
 * mvn -B -q -pl exporter/kafka -am test -Dtest=KafkaExporterThroughputTest \
 *     -Dsluice.kafka.measure=true -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * Results are printed; nothing about time is asserted.
 */
@EnabledIfSystemProperty(named = "sluice.kafka.measure", matches = "true")
class KafkaExporterThroughputTest {
  private static final int SPANS_PER_BATCH = 1000;
  private static final int SENDERS = 4;
  private static final long MAX_SPANS = 1_000_000;
  private static final long MAX_NANOS = 30_000_000_000L;
  private static final long WARM_UP_BATCHES = 20;

  @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker(4);

  @ParameterizedTest
  @CsvSource({"none,false", "lz4,false", "zstd,false", "lz4,true", "zstd,true"})
  void measuresSpansPerSecondAndCpuPerSpan(String compression, boolean byTraceId) throws Exception {
    String topic = "measure_" + compression + (byTraceId ? "_keyed" : "");
    BROKER.createTopic(topic, 4);
    KafkaExporter exporter =
        TestExporters.start(
            BROKER.bootstrapServers(),
            "traces: {topic: "
                + topic
                + "}\npartition_traces_by_id: "
                + byTraceId
                + "\nproducer: {compression: "
                + compression
                + ", required_acks: 1}");
    Batch batch = batch(Signal.TRACES, spans(SPANS_PER_BATCH, 7));
    try {
      for (int i = 0; i < WARM_UP_BATCHES; i++) {
        assertThat(exporter.export(batch, TestExporters.deadline(30)).outcome())
            .isEqualTo(ExportResult.Outcome.SUCCESS);
      }
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long networkCpuBefore = networkThreadCpu(threads);
      AtomicLong sent = new AtomicLong();
      AtomicLong senderCpu = new AtomicLong();
      long start = System.nanoTime();
      List<Thread> senders = new ArrayList<>();
      for (int t = 0; t < SENDERS; t++) {
        Thread sender =
            new Thread(
                () -> {
                  long cpuStart = threads.getCurrentThreadCpuTime();
                  try {
                    while (sent.get() < MAX_SPANS && System.nanoTime() - start < MAX_NANOS) {
                      ExportResult result = exporter.export(batch, TestExporters.deadline(30));
                      if (result.outcome() == ExportResult.Outcome.SUCCESS) {
                        sent.addAndGet(SPANS_PER_BATCH);
                      }
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  senderCpu.addAndGet(threads.getCurrentThreadCpuTime() - cpuStart);
                });
        sender.start();
        senders.add(sender);
      }
      for (Thread sender : senders) {
        sender.join();
      }
      long elapsed = System.nanoTime() - start;
      long networkCpu = networkThreadCpu(threads) - networkCpuBefore;
      double seconds = elapsed / 1e9;
      System.out.printf(
          "kafka exporter, %s, partition_traces_by_id=%s: %,d spans in %.1f s = %,.0f spans/s;"
              + " CPU per span: senders %.0f ns + producer I/O thread %.0f ns = %.0f ns%n",
          compression,
          byTraceId,
          sent.get(),
          seconds,
          sent.get() / seconds,
          (double) senderCpu.get() / sent.get(),
          (double) networkCpu / sent.get(),
          (double) (senderCpu.get() + networkCpu) / sent.get());
      assertThat(sent.get()).isPositive();
    } finally {
      batch.clear();
      exporter.shutdown(TestExporters.deadline(10));
    }
  }

  private static long networkThreadCpu(ThreadMXBean threads) {
    long total = 0;
    for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("kafka-producer-network-thread")) {
        total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
      }
    }
    return total;
  }

  /** HTTP server spans shaped as the benchmarks' (ten attributes, ~430 bytes), random IDs. */
  static ExportTraceServiceRequest spans(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    ScopeSpans.Builder scope =
        ScopeSpans.newBuilder()
            .setScope(
                InstrumentationScope.newBuilder()
                    .setName("io.opentelemetry.tomcat-10.0")
                    .setVersion("2.20.0-alpha"));
    for (int i = 0; i < count; i++) {
      byte[] traceId = new byte[16];
      byte[] spanId = new byte[8];
      byte[] parentId = new byte[8];
      random.nextBytes(traceId);
      random.nextBytes(spanId);
      random.nextBytes(parentId);
      int status = random.nextInt(20) == 0 ? 503 : 200;
      long startNanos = 1_767_225_600_000_000_000L + i * 1_000_000L;
      scope.addSpans(
          Span.newBuilder()
              .setTraceId(ByteString.copyFrom(traceId))
              .setSpanId(ByteString.copyFrom(spanId))
              .setParentSpanId(ByteString.copyFrom(parentId))
              .setName("GET /api/v1/orders/{id}")
              .setKind(Span.SpanKind.SPAN_KIND_SERVER)
              .setStartTimeUnixNano(startNanos)
              .setEndTimeUnixNano(startNanos + 1_000_000L + random.nextInt(50_000_000))
              .addAttributes(
                  string(
                      "client.address", "10.1." + random.nextInt(256) + "." + random.nextInt(256)))
              .addAttributes(string("http.request.method", "GET"))
              .addAttributes(integer("http.response.status_code", status))
              .addAttributes(string("http.route", "/api/v1/orders/{id}"))
              .addAttributes(string("network.protocol.version", "1.1"))
              .addAttributes(string("server.address", "orders.internal.example.com"))
              .addAttributes(integer("server.port", 8080))
              .addAttributes(string("url.path", "/api/v1/orders/" + random.nextInt(1_000_000)))
              .addAttributes(string("url.scheme", "http"))
              .addAttributes(
                  string(
                      "user_agent.original",
                      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)"
                          + " Chrome/126.0 Safari/537.36"))
              .setStatus(
                  status >= 500
                      ? Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR)
                      : Status.newBuilder()));
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(string("service.name", "orders"))
                        .addAttributes(string("service.version", "1.4.2"))
                        .addAttributes(string("host.name", "orders-7d9f")))
                .addScopeSpans(scope))
        .build();
  }

  private static KeyValue string(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  private static KeyValue integer(String key, long value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setIntValue(value))
        .build();
  }
}
