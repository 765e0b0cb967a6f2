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
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durable pipelines across restarts whose configuration changed: a logged request keeps the
 * identity of the pipelines it was logged for, whatever pipelines are added, renamed or removed in
 * between, and is never delivered to another pipeline.
 */
class DurableRestartTest {
  private static final int REQUESTS = 10;
  private static final int SPANS_PER_REQUEST = 100;
  private static final long SHORT_STOP_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final long STOP_NANOS = TimeUnit.SECONDS.toNanos(10);

  @TempDir Path directory;

  /**
   * One otlp receiver feeding each of {@code pipelines} (name to the endpoint of its one exporter,
   * {@code otlp/<suffix of the name>}, with storage).
   */
  private String config(Map<String, String> pipelines) {
    return config(pipelines, Map.of());
  }

  /**
   * {@link #config(Map)}, with pipelines of {@code slowBatches} batched by {@code batch/slow}
   * (flushed after a second) instead of {@code batch}.
   */
  private String config(Map<String, String> pipelines, Map<String, Boolean> slowBatches) {
    List<String> lines = new ArrayList<>();
    lines.addAll(
        List.of(
            "extensions:",
            "  file_storage:",
            "    directory: " + directory.resolve("wal"),
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "        endpoint: 127.0.0.1:0",
            "processors:",
            "  batch:",
            "    timeout: 10ms",
            "  batch/slow:",
            "    timeout: 1s",
            "exporters:"));
    pipelines.forEach(
        (pipeline, endpoint) ->
            lines.addAll(TestCollectors.durableOtlpExporter(exporterOf(pipeline), endpoint)));
    lines.addAll(
        List.of(
            "service:",
            "  extensions: [file_storage]",
            "  telemetry:",
            "    metrics:",
            "      level: none",
            "  pipelines:"));
    pipelines.forEach(
        (pipeline, endpoint) ->
            lines.addAll(
                List.of(
                    "    " + pipeline + ":",
                    "      receivers: [otlp]",
                    "      processors: ["
                        + (slowBatches.containsKey(pipeline) ? "batch/slow" : "batch")
                        + "]",
                    "      exporters: [" + exporterOf(pipeline) + "]")));
    lines.add("");
    return String.join("\n", lines);
  }

  private static String exporterOf(String pipeline) {
    return "otlp/" + pipeline.substring(pipeline.indexOf('/') + 1);
  }

  private static Map<String, String> pipelines(String... nameThenEndpoint) {
    Map<String, String> pipelines = new LinkedHashMap<>();
    for (int i = 0; i < nameThenEndpoint.length; i += 2) {
      pipelines.put(nameThenEndpoint[i], nameThenEndpoint[i + 1]);
    }
    return pipelines;
  }

  private static ExportTraceServiceRequest request(int number) {
    ScopeSpans.Builder scope = ScopeSpans.newBuilder();
    for (int s = 0; s < SPANS_PER_REQUEST; s++) {
      int id = number * SPANS_PER_REQUEST + s;
      scope.addSpans(
          Span.newBuilder()
              .setTraceId(
                  ByteString.copyFrom(
                      new byte[] {
                        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, (byte) (id >> 8), (byte) id
                      }))
              .setSpanId(
                  ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, (byte) (id >> 8), (byte) id}))
              .setName(Integer.toString(id))
              .addAttributes(
                  KeyValue.newBuilder()
                      .setKey("k")
                      .setValue(AnyValue.newBuilder().setStringValue("v"))));
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(ResourceSpans.newBuilder().addScopeSpans(scope))
        .build();
  }

  private static void send(Collector collector) {
    ManagedChannel channel = TestCollectors.channel(collector);
    try {
      for (int number = 0; number < REQUESTS; number++) {
        TraceServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .export(request(number));
      }
    } finally {
      channel.shutdownNow();
    }
  }

  @SuppressWarnings("unchecked")
  private static OtlpSink down() throws Exception {
    OtlpSink sink = OtlpSink.start();
    Supplier<StatusRuntimeException>[] errors = new Supplier[1_000_000];
    java.util.Arrays.fill(
        errors, (Supplier<StatusRuntimeException>) Status.UNAVAILABLE::asRuntimeException);
    return sink.failNext(errors);
  }

  /** A run with traces/b alone, whose backend is down: the log owes it every request. */
  private void firstRunOwingTracesB(OtlpSink downB) throws Exception {
    Collector first =
        TestCollectors.start(
            config(pipelines("traces/b", downB.endpoint())), Collector.Options.defaults());
    try {
      send(first);
      assertThat(downB.await(() -> downB.calls() > 0, 20, TimeUnit.SECONDS)).isTrue();
    } finally {
      first.shutdown(SHORT_STOP_NANOS);
    }
  }

  @Test
  void aPipelineAddedBetweenRestartsDoesNotTakeTheRequestsOfAnother() throws Exception {
    try (OtlpSink downB = down();
        OtlpSink stillDownB = down();
        OtlpSink a = OtlpSink.start();
        OtlpSink b = OtlpSink.start()) {
      firstRunOwingTracesB(downB);

      // A pipeline is added; traces/b's backend is still down.
      Collector second =
          TestCollectors.start(
              config(pipelines("traces/a", a.endpoint(), "traces/b", stillDownB.endpoint())),
              Collector.Options.defaults());
      try {
        assertThat(stillDownB.await(() -> stillDownB.calls() > 0, 20, TimeUnit.SECONDS)).isTrue();
      } finally {
        second.shutdown(SHORT_STOP_NANOS);
      }

      Collector third =
          TestCollectors.start(
              config(pipelines("traces/a", a.endpoint(), "traces/b", b.endpoint())),
              Collector.Options.defaults());
      try {
        assertThat(b.await(() -> b.spans() >= REQUESTS * SPANS_PER_REQUEST, 20, TimeUnit.SECONDS))
            .as("spans delivered to traces/b: %d", b.spans())
            .isTrue();
      } finally {
        third.shutdown(STOP_NANOS);
      }
      assertThat(a.spans()).as("spans of traces/b delivered to traces/a").isZero();
      assertThat(BackpressureTest.spanNumbers(b))
          .containsAll(
              java.util.stream.IntStream.range(0, REQUESTS * SPANS_PER_REQUEST).boxed().toList());
    }
  }

  @Test
  void requestsOfARemovedPipelineAreCountedAndGoNowhereElse() throws Exception {
    try (OtlpSink downB = down();
        OtlpSink a = OtlpSink.start()) {
      firstRunOwingTracesB(downB);

      // traces/b is gone (its name now stands for nothing); traces/a is new.
      Collector second =
          TestCollectors.start(
              config(pipelines("traces/a", a.endpoint())), Collector.Options.defaults());
      try {
        assertThat(
                Await.within(
                    Await.DEADLINE,
                    () ->
                        TestCollectors.prometheus(second)
                            .contains("sluice_wal_replay_dropped " + REQUESTS)))
            .as(TestCollectors.prometheus(second))
            .isTrue();
      } finally {
        second.shutdown(STOP_NANOS);
      }
      assertThat(a.spans()).isZero();
    }
  }

  @Test
  void anExporterIsDoneWithWhatItDeliveredWhileAnotherPipelinesExporterIsDown() throws Exception {
    try (OtlpSink downA = down();
        OtlpSink a = OtlpSink.start();
        OtlpSink b = OtlpSink.start()) {
      // traces/a batches for a second: its batch still holds each request when otlp/b has
      // delivered it, and reaches otlp/a's queue (whose backend is down) only later.
      Map<String, String> layout =
          pipelines("traces/a", downA.endpoint(), "traces/b", b.endpoint());
      Collector first =
          TestCollectors.start(
              config(layout, Map.of("traces/a", true)), Collector.Options.defaults());
      try {
        send(first);
        assertThat(b.await(() -> b.spans() == REQUESTS * SPANS_PER_REQUEST, 20, TimeUnit.SECONDS))
            .isTrue();
        assertThat(downA.await(() -> downA.calls() > 0, 20, TimeUnit.SECONDS)).isTrue();
        assertThat(
                Await.within(
                    Await.DEADLINE,
                    () ->
                        TestCollectors.prometheus(first)
                            .contains("sluice_wal_exporter_records_owed{exporter=\"otlp/b\"} 0")))
            .as(TestCollectors.prometheus(first))
            .isTrue();
      } finally {
        first.shutdown(STOP_NANOS);
      }
      Collector second =
          TestCollectors.start(
              config(pipelines("traces/a", a.endpoint(), "traces/b", b.endpoint())),
              Collector.Options.defaults());
      try {
        assertThat(a.await(() -> a.spans() == REQUESTS * SPANS_PER_REQUEST, 20, TimeUnit.SECONDS))
            .isTrue();
      } finally {
        second.shutdown(STOP_NANOS);
      }
      assertThat(b.spans())
          .as("otlp/b had everything: none again")
          .isEqualTo(REQUESTS * SPANS_PER_REQUEST);
    }
  }
}
