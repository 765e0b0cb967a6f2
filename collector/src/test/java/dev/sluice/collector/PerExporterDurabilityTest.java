package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two exporters with {@code sending_queue.storage} in one pipeline, each a consumer of the log with
 * its own progress, and one without storage: while one backend is down the other delivers, a
 * restart replays only to the exporter that still owes, and the log keeps a segment until both are
 * done with it.
 */
class PerExporterDurabilityTest {
  private static final int REQUESTS = 12;
  // Each request carries one span with a blob this large, so that the log rolls segments of 1 MiB.
  private static final int BLOB_BYTES = 200 * 1024;
  private static final int MAX_SEGMENTS_WHEN_DONE = 1;
  private static final long SHORT_STOP_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final long STOP_NANOS = TimeUnit.SECONDS.toNanos(10);

  @TempDir Path directory;

  private Path wal() {
    return directory.resolve("wal");
  }

  /**
   * otlp -> batch -> the given exporters: {@code otlp/up} and {@code otlp/down} with storage (when
   * their endpoints are given), {@code otlp/memory} without.
   */
  private String config(String up, String down, String memory) {
    List<String> lines = new ArrayList<>();
    List<String> exporters = new ArrayList<>();
    lines.addAll(
        List.of(
            "extensions:",
            "  file_storage:",
            "    directory: " + wal(),
            "    segment_size_mib: 1",
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "        endpoint: 127.0.0.1:0",
            "processors:",
            "  batch:",
            "    timeout: 10ms",
            "exporters:"));
    for (String[] exporter :
        new String[][] {
          {"otlp/up", up, "yes"}, {"otlp/down", down, "yes"}, {"otlp/memory", memory, "no"}
        }) {
      if (exporter[1] == null) {
        continue;
      }
      exporters.add(exporter[0]);
      lines.addAll(
          List.of(
              "  " + exporter[0] + ":",
              "    endpoint: " + exporter[1],
              "    tls:",
              "      insecure: true",
              "    timeout: 2s",
              "    retry_on_failure:",
              "      initial_interval: 50ms",
              "      max_interval: 200ms",
              "      max_elapsed_time: 60s"));
      if (exporter[2].equals("yes")) {
        lines.addAll(List.of("    sending_queue:", "      storage: file_storage"));
      }
    }
    lines.addAll(
        List.of(
            "service:",
            "  extensions: [file_storage]",
            "  telemetry:",
            "    metrics:",
            "      level: none",
            "  pipelines:",
            "    traces:",
            "      receivers: [otlp]",
            "      processors: [batch]",
            "      exporters: [" + String.join(", ", exporters) + "]",
            ""));
    return String.join("\n", lines);
  }

  /** One span named {@code number}, with a large attribute. */
  private static ExportTraceServiceRequest request(int number) {
    byte[] traceId = new byte[16];
    traceId[15] = (byte) (number + 1);
    byte[] spanId = new byte[8];
    spanId[7] = (byte) (number + 1);
    Span span =
        Span.newBuilder()
            .setTraceId(ByteString.copyFrom(traceId))
            .setSpanId(ByteString.copyFrom(spanId))
            .setName(Integer.toString(number))
            .addAttributes(
                KeyValue.newBuilder()
                    .setKey("blob")
                    .setValue(AnyValue.newBuilder().setStringValue("x".repeat(BLOB_BYTES))))
            .build();
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(
                            KeyValue.newBuilder()
                                .setKey("service.name")
                                .setValue(AnyValue.newBuilder().setStringValue("svc"))))
                .addScopeSpans(ScopeSpans.newBuilder().addSpans(span)))
        .build();
  }

  private static void send(Collector collector, int first, int count) {
    ManagedChannel channel = TestCollectors.channel(collector);
    try {
      for (int number = first; number < first + count; number++) {
        TraceServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .export(request(number));
      }
    } finally {
      channel.shutdownNow();
    }
  }

  @SuppressWarnings("unchecked")
  private static Supplier<StatusRuntimeException>[] unavailable(int times) {
    Supplier<StatusRuntimeException>[] errors = new Supplier[times];
    for (int i = 0; i < times; i++) {
      errors[i] = () -> Status.UNAVAILABLE.asRuntimeException();
    }
    return errors;
  }

  private long segmentFiles() throws IOException {
    try (Stream<Path> files = Files.list(wal())) {
      return files.filter(file -> file.getFileName().toString().startsWith("segment-")).count();
    }
  }

  private static List<Integer> numbers(int from, int to) {
    return IntStream.range(from, to).boxed().toList();
  }

  @Test
  void aRestartReplaysOnlyToTheDurableExporterThatStillOwes() throws Exception {
    try (OtlpSink up = OtlpSink.start();
        OtlpSink down = OtlpSink.start();
        OtlpSink memory = OtlpSink.start();
        OtlpSink back = OtlpSink.start()) {
      down.failNext(unavailable(100_000));
      Collector first =
          TestCollectors.start(
              config(up.endpoint(), down.endpoint(), memory.endpoint()),
              Collector.Options.defaults());
      try {
        send(first, 0, REQUESTS);
        assertThat(up.await(() -> up.spans() == REQUESTS, 20, TimeUnit.SECONDS)).isTrue();
        assertThat(memory.await(() -> memory.spans() == REQUESTS, 20, TimeUnit.SECONDS)).isTrue();
        Await.until(
            "otlp/up's queue empty",
            () ->
                TestCollectors.prometheus(first)
                    .contains("otelcol_exporter_queue_size{exporter=\"otlp/up\"} 0"));
        String metrics = TestCollectors.prometheus(first);
        assertThat(metrics)
            .contains("sluice_wal_exporter_records_owed{exporter=\"otlp/down\"} " + REQUESTS)
            .contains("sluice_wal_records_owed " + REQUESTS)
            // A durable exporter's queue is the log, bounded by max_size_mib (1024 by default).
            .contains("otelcol_exporter_queue_capacity{exporter=\"otlp/down\"} " + (1024L << 20))
            .contains("sluice_exporter_memory_queue_capacity{exporter=\"otlp/down\"} 1000")
            // Without storage the queue is the in-memory one, as before.
            .contains("otelcol_exporter_queue_capacity{exporter=\"otlp/memory\"} 1000")
            .doesNotContain("sluice_exporter_memory_queue_capacity{exporter=\"otlp/memory\"}");
        assertThat(metrics)
            .containsPattern("otelcol_exporter_queue_size\\{exporter=\"otlp/down\"\\} [1-9]");
        // Past a progress write: up is done with every segment, down with none, so all stay.
        Thread.sleep(300);
        assertThat(segmentFiles()).isGreaterThan(MAX_SEGMENTS_WHEN_DONE);
      } finally {
        first.shutdown(SHORT_STOP_NANOS);
      }
      assertThat(down.spans()).isZero();

      Collector second =
          TestCollectors.start(
              config(up.endpoint(), back.endpoint(), memory.endpoint()),
              Collector.Options.defaults());
      try {
        assertThat(back.await(() -> back.spans() == REQUESTS, 20, TimeUnit.SECONDS)).isTrue();
        assertThat(BackpressureTest.spanNumbers(back))
            .containsExactlyInAnyOrderElementsOf(numbers(0, REQUESTS));
        Await.until("at most one segment file", () -> segmentFilesOrFail() <= 1);
        send(second, REQUESTS, 2);
        assertThat(back.await(() -> back.spans() == REQUESTS + 2, 20, TimeUnit.SECONDS)).isTrue();
        assertThat(up.await(() -> up.spans() == REQUESTS + 2, 20, TimeUnit.SECONDS)).isTrue();
        assertThat(memory.await(() -> memory.spans() == REQUESTS + 2, 20, TimeUnit.SECONDS))
            .isTrue();
      } finally {
        second.shutdown(STOP_NANOS);
      }
      // up delivered its requests before the restart and memory has no storage: no replays.
      assertThat(BackpressureTest.spanNumbers(up))
          .containsExactlyInAnyOrderElementsOf(numbers(0, REQUESTS + 2));
      assertThat(BackpressureTest.spanNumbers(memory))
          .containsExactlyInAnyOrderElementsOf(numbers(0, REQUESTS + 2));
    }
  }

  @Test
  void anExporterDroppedFromTheConfigurationNoLongerHoldsTheLogBack() throws Exception {
    try (OtlpSink up = OtlpSink.start();
        OtlpSink down = OtlpSink.start()) {
      down.failNext(unavailable(100_000));
      Collector first =
          TestCollectors.start(
              config(up.endpoint(), down.endpoint(), null), Collector.Options.defaults());
      try {
        send(first, 0, REQUESTS);
        assertThat(up.await(() -> up.spans() == REQUESTS, 20, TimeUnit.SECONDS)).isTrue();
        Await.until(
            "otlp/up's queue empty",
            () ->
                TestCollectors.prometheus(first)
                    .contains("otelcol_exporter_queue_size{exporter=\"otlp/up\"} 0"));
        Thread.sleep(300);
      } finally {
        first.shutdown(SHORT_STOP_NANOS);
      }
      assertThat(segmentFiles()).isGreaterThan(MAX_SEGMENTS_WHEN_DONE);

      Collector second =
          TestCollectors.start(config(up.endpoint(), null, null), Collector.Options.defaults());
      try {
        // What only otlp/down owed is dropped and counted, and its segments go.
        assertThat(TestCollectors.prometheus(second))
            .contains("sluice_wal_replay_dropped " + REQUESTS);
        Await.until("at most one segment file", () -> segmentFilesOrFail() <= 1);
        Thread.sleep(300);
        assertThat(up.spans()).isEqualTo(REQUESTS);
      } finally {
        second.shutdown(STOP_NANOS);
      }
    }
  }

  private long segmentFilesOrFail() {
    try {
      return segmentFiles();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
