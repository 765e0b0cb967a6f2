package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.Await;
import io.grpc.ManagedChannel;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent whose {@code loadbalancing} exporter has {@code sending_queue.storage: file_storage}:
 * what it answered while every backend was down is in its write-ahead log, and a new agent on the
 * same directory delivers it once the backends are up, each trace whole on one backend.
 */
class LoadBalancingDurableTest {
  private static final int BACKENDS = 2;
  private static final int TRACES = 12;
  private static final int SPANS_PER_TRACE_PER_REQUEST = 2;
  private static final int SPANS_PER_REQUEST = TRACES * SPANS_PER_TRACE_PER_REQUEST;
  private static final int REQUESTS_DURING_OUTAGE = 4;
  private static final int REQUESTS_AFTER_RESTART = 2;
  private static final long SHORT_STOP_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final long STOP_NANOS = TimeUnit.SECONDS.toNanos(10);

  @TempDir Path directory;

  private String agentConfig(List<Integer> backendPorts) {
    List<String> hostnames = new ArrayList<>();
    for (int port : backendPorts) {
      hostnames.add("127.0.0.1:" + port);
    }
    return String.join(
        "\n",
        "extensions:",
        "  file_storage:",
        "    directory: " + directory.resolve("agent-wal"),
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "        endpoint: 127.0.0.1:0",
        "exporters:",
        "  loadbalancing:",
        "    protocol:",
        "      otlp:",
        "        tls:",
        "          insecure: true",
        "        timeout: 2s",
        "        retry_on_failure:",
        "          initial_interval: 20ms",
        "          max_interval: 50ms",
        "          max_elapsed_time: 200ms",
        "    resolver:",
        "      static:",
        "        hostnames: [" + String.join(", ", hostnames) + "]",
        "    sending_queue:",
        "      storage: file_storage",
        "    retry_on_failure:",
        "      initial_interval: 50ms",
        "      max_interval: 200ms",
        "      max_elapsed_time: 0s",
        "service:",
        "  extensions: [file_storage]",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        "      exporters: [loadbalancing]",
        "");
  }

  /** A backend Sluice on a fixed port, to its own sink. */
  private static Collector backend(int port, OtlpSink sink) throws Exception {
    return TestCollectors.start(
        TestCollectors.tracesToSink(sink.endpoint(), "    timeout: 10ms", "")
            .replace("endpoint: 127.0.0.1:0", "endpoint: 127.0.0.1:" + port),
        Collector.Options.defaults());
  }

  private static byte[] traceId(int trace) {
    return ByteBuffer.allocate(16).putLong(0xd0ab_1e00_0000_0000L | trace).putLong(~trace).array();
  }

  /** Two spans of each trace, interleaved, with span IDs unique to this request. */
  private static ExportTraceServiceRequest request(int number) {
    ScopeSpans.Builder scope = ScopeSpans.newBuilder();
    for (int s = 0; s < SPANS_PER_TRACE_PER_REQUEST; s++) {
      for (int t = 0; t < TRACES; t++) {
        long spanId = ((long) number << 32) | ((long) t << 8) | s;
        scope.addSpans(
            Span.newBuilder()
                .setTraceId(ByteString.copyFrom(traceId(t)))
                .setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(spanId).array()))
                .setName("request-" + number));
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
                                .setValue(AnyValue.newBuilder().setStringValue("checkout"))))
                .addScopeSpans(scope))
        .build();
  }

  private static void send(Collector agent, int first, int count) {
    ManagedChannel channel = TestCollectors.channel(agent);
    try {
      for (int r = first; r < first + count; r++) {
        TraceServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .export(request(r));
      }
    } finally {
      channel.shutdownNow();
    }
  }

  /** Span ID -> how often it arrived, over every sink; and per sink the traces it got. */
  private static Map<String, Integer> spanIds(List<OtlpSink> sinks, List<Set<String>> traces) {
    Map<String, Integer> spanIds = new HashMap<>();
    HexFormat hex = HexFormat.of();
    for (OtlpSink sink : sinks) {
      Set<String> here = new HashSet<>();
      for (ExportTraceServiceRequest request : sink.traces()) {
        for (ResourceSpans resource : request.getResourceSpansList()) {
          for (ScopeSpans scope : resource.getScopeSpansList()) {
            for (Span span : scope.getSpansList()) {
              here.add(hex.formatHex(span.getTraceId().toByteArray()));
              spanIds.merge(hex.formatHex(span.getSpanId().toByteArray()), 1, Integer::sum);
            }
          }
        }
      }
      traces.add(here);
    }
    return spanIds;
  }

  @Test
  void whatTheAgentAnsweredDuringAnOutageIsDeliveredAfterItsRestart() throws Exception {
    List<Integer> ports = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      ports.add(DaemonIT.freePort());
    }
    List<OtlpSink> sinks = new ArrayList<>();
    List<Collector> backends = new ArrayList<>();
    try {
      for (int i = 0; i < BACKENDS; i++) {
        sinks.add(OtlpSink.start());
      }
      // Every backend is down: the agent answers from its log and cannot deliver.
      Collector first = TestCollectors.start(agentConfig(ports), Collector.Options.defaults());
      try {
        send(first, 0, REQUESTS_DURING_OUTAGE);
        Await.until(
            "the outage's requests owed in the log",
            () ->
                TestCollectors.prometheus(first)
                    .contains("sluice_wal_records_owed " + REQUESTS_DURING_OUTAGE));
      } finally {
        first.shutdown(SHORT_STOP_NANOS);
      }

      for (int i = 0; i < BACKENDS; i++) {
        backends.add(backend(ports.get(i), sinks.get(i)));
      }
      Collector second = TestCollectors.start(agentConfig(ports), Collector.Options.defaults());
      long expected = (long) (REQUESTS_DURING_OUTAGE + REQUESTS_AFTER_RESTART) * SPANS_PER_REQUEST;
      try {
        send(second, REQUESTS_DURING_OUTAGE, REQUESTS_AFTER_RESTART);
        Await.until(
            "every span at the sinks", () -> spanIds(sinks, new ArrayList<>()).size() >= expected);
        // Everything was delivered and the log knows it.
        Await.until(
            "nothing owed in the log",
            () -> TestCollectors.prometheus(second).contains("sluice_wal_records_owed 0"));
      } finally {
        second.shutdown(STOP_NANOS);
      }

      List<Set<String>> tracesPerSink = new ArrayList<>();
      Map<String, Integer> spanIds = spanIds(sinks, tracesPerSink);
      long delivered = spanIds.values().stream().mapToLong(Integer::longValue).sum();
      System.out.printf(
          "loadbalancing agent with a durable queue, every backend down, agent restarted:"
              + " %d spans accepted, %d delivered, %d duplicates%n",
          expected, delivered, delivered - spanIds.size());
      assertThat(spanIds).hasSize((int) expected);
      Set<String> seen = new HashSet<>();
      for (Set<String> onOneSink : tracesPerSink) {
        for (String trace : onOneSink) {
          assertThat(seen.add(trace)).as("trace %s on two backends", trace).isTrue();
        }
      }
      assertThat(seen).hasSize(TRACES);

      // A third agent on the same log replays nothing.
      long before = sinks.stream().mapToLong(OtlpSink::spans).sum();
      Collector third = TestCollectors.start(agentConfig(ports), Collector.Options.defaults());
      try {
        Thread.sleep(300);
        assertThat(sinks.stream().mapToLong(OtlpSink::spans).sum()).isEqualTo(before);
      } finally {
        third.shutdown(STOP_NANOS);
      }
    } finally {
      for (Collector backend : backends) {
        backend.shutdown(STOP_NANOS);
      }
      for (OtlpSink sink : sinks) {
        sink.close();
      }
    }
  }
}
