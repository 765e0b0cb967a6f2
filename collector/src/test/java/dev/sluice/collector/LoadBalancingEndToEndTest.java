package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.component.ComponentId;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.receiver.otlp.OtlpReceiver;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A load-balancing tier on loopback: an agent Sluice with the {@code loadbalancing} exporter over a
 * static list of three backend Sluices, each exporting to its own protobuf-java gRPC sink.
 */
class LoadBalancingEndToEndTest {
  private static final int BACKENDS = 3;
  private static final int TRACES = 40;
  private static final int SPANS_PER_TRACE_PER_REQUEST = 2;
  private static final int SPANS_PER_REQUEST = TRACES * SPANS_PER_TRACE_PER_REQUEST;
  private static final String BATCH = "    timeout: 10ms";
  private static final long PACE_MILLIS = 40;
  private static final long SHUTDOWN_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final List<OtlpSink> sinks = new ArrayList<>();
  private final List<Collector> backends = new ArrayList<>();
  private final Set<Collector> stopped = new HashSet<>();
  private Collector agent;
  private ManagedChannel channel;

  @BeforeEach
  void startTier() throws Exception {
    List<String> hostnames = new ArrayList<>();
    for (int i = 0; i < BACKENDS; i++) {
      OtlpSink sink = OtlpSink.start();
      sinks.add(sink);
      Collector backend =
          TestCollectors.start(
              TestCollectors.tracesToSink(sink.endpoint(), BATCH, ""),
              Collector.Options.defaults());
      backends.add(backend);
      int port = ((OtlpReceiver) backend.receiver(ComponentId.parse("otlp"))).grpcPort();
      hostnames.add("127.0.0.1:" + port);
    }
    agent = TestCollectors.start(agentConfig(hostnames), Collector.Options.defaults());
    channel = TestCollectors.channel(agent);
  }

  @AfterEach
  void stopTier() throws Exception {
    if (channel != null) {
      channel.shutdownNow();
    }
    if (agent != null) {
      agent.shutdown(SHUTDOWN_NANOS);
    }
    for (Collector backend : backends) {
      if (!stopped.contains(backend)) {
        backend.shutdown(SHUTDOWN_NANOS);
      }
    }
    for (OtlpSink sink : sinks) {
      sink.close();
    }
  }

  private static String agentConfig(List<String> hostnames) {
    return String.join(
        "\n",
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
        "        timeout: 5s",
        "        retry_on_failure:",
        "          initial_interval: 20ms",
        "          max_interval: 100ms",
        "          max_elapsed_time: 2s",
        "    resolver:",
        "      static:",
        "        hostnames: [" + String.join(", ", hostnames) + "]",
        "    retry_on_failure:",
        "      initial_interval: 50ms",
        "      max_interval: 200ms",
        "service:",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        "      exporters: [loadbalancing]",
        "");
  }

  private static byte[] traceId(int trace) {
    return ByteBuffer.allocate(16).putLong(0x10ad_ba1a_0000_0000L | trace).putLong(~trace).array();
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

  /** Sends request {@code number}; the spans it carried if the agent accepted it, else 0. */
  private long send(int number) {
    try {
      TraceServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .export(request(number));
      return SPANS_PER_REQUEST;
    } catch (io.grpc.StatusRuntimeException e) {
      return 0;
    }
  }

  /** What arrived: per sink, the set of traces; and span IDs with how often each came. */
  private record Arrivals(List<Set<String>> tracesPerSink, Map<String, Integer> spanIds) {
    long delivered() {
      return spanIds.values().stream().mapToLong(Integer::longValue).sum();
    }

    long duplicates() {
      return delivered() - spanIds.size();
    }
  }

  private Arrivals arrivals() {
    List<Set<String>> traces = new ArrayList<>();
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
    return new Arrivals(traces, spanIds);
  }

  private long spansAtSinks() {
    return sinks.stream().mapToLong(OtlpSink::spans).sum();
  }

  @Test
  void tracesSentOverSeveralRequestsEndUpWholeOnExactlyOneBackend() throws Exception {
    int requests = 6;
    long accepted = 0;
    for (int r = 0; r < requests; r++) {
      accepted += send(r);
    }

    assertThat(accepted).isEqualTo((long) requests * SPANS_PER_REQUEST);
    Await.until(
        "every span at the sinks", () -> spansAtSinks() >= (long) requests * SPANS_PER_REQUEST);
    Arrivals arrivals = arrivals();
    assertThat(arrivals.spanIds()).hasSize(requests * SPANS_PER_REQUEST);
    assertThat(arrivals.duplicates()).isZero();
    Set<String> seen = new HashSet<>();
    for (Set<String> onOneSink : arrivals.tracesPerSink()) {
      // Each backend got a share, and no trace is on two of them.
      assertThat(onOneSink).isNotEmpty();
      for (String trace : onOneSink) {
        assertThat(seen.add(trace)).as("trace %s on two backends", trace).isTrue();
      }
    }
    assertThat(seen).hasSize(TRACES);
  }

  @Test
  void stoppingABackendMidRunMovesItsKeysAndLosesNothingAccepted() throws Exception {
    int requests = 30;
    int stopAfter = 8;
    // The last requests wait for the stop to end, so some are sent after it on any machine.
    int afterStop = 5;
    CountDownLatch stopEnded = new CountDownLatch(1);
    AtomicLong accepted = new AtomicLong();
    AtomicInteger sent = new AtomicInteger();
    Thread sender =
        new Thread(
            () -> {
              for (int r = 0; r < requests; r++) {
                if (r == requests - afterStop) {
                  try {
                    if (!stopEnded.await(60, TimeUnit.SECONDS)) {
                      return;
                    }
                  } catch (InterruptedException e) {
                    return;
                  }
                }
                accepted.addAndGet(send(r));
                sent.incrementAndGet();
                try {
                  Thread.sleep(PACE_MILLIS);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "lb-test-sender");
    sender.start();
    Await.until("the requests before the stop sent", () -> sent.get() >= stopAfter);
    // The backend's batches reach its sink a little after the agent answered.
    Await.until(
        "spans at the sink of the backend to stop",
        () -> !arrivals().tracesPerSink().get(1).isEmpty());
    Set<String> onStopped = arrivals().tracesPerSink().get(1);
    // Stopped while the agent goes on sending: what the backend took is drained to its sink.
    Collector victim = backends.get(1);
    victim.shutdown(SHUTDOWN_NANOS);
    stopped.add(victim);
    long stoppedSinkSpans = sinks.get(1).spans();
    int sentBeforeStopEnded = sent.get();
    stopEnded.countDown();
    sender.join(TimeUnit.SECONDS.toMillis(60));
    assertThat(sender.isAlive()).isFalse();
    assertThat(sentBeforeStopEnded).isLessThan(requests);

    long acceptedSpans = accepted.get();
    boolean allArrived =
        Await.within(Duration.ofSeconds(60), () -> arrivals().spanIds().size() >= acceptedSpans);

    Arrivals arrivals = arrivals();
    System.out.printf(
        "loadbalancing tier, backend 2 of 3 stopped after request %d of %d (stop done after %d):"
            + " accepted %d spans,"
            + " delivered %d (%d unique, %d duplicates), per sink %d / %d / %d%n",
        stopAfter,
        requests,
        sentBeforeStopEnded,
        acceptedSpans,
        arrivals.delivered(),
        arrivals.spanIds().size(),
        arrivals.duplicates(),
        sinks.get(0).spans(),
        sinks.get(1).spans(),
        sinks.get(2).spans());
    assertThat(allArrived).isTrue();
    // Nothing accepted is lost: accepted = delivered - duplicates.
    assertThat(arrivals.delivered() - arrivals.duplicates()).isEqualTo(acceptedSpans);
    assertThat(acceptedSpans).isEqualTo((long) requests * SPANS_PER_REQUEST);
    // Nothing went to the stopped backend afterwards, and its traces went on elsewhere.
    assertThat(sinks.get(1).spans()).isEqualTo(stoppedSinkSpans);
    for (String trace : onStopped) {
      assertThat(
              arrivals.tracesPerSink().get(0).contains(trace)
                  || arrivals.tracesPerSink().get(2).contains(trace))
          .as("trace %s moved to another backend", trace)
          .isTrue();
    }
    assertThat(TestCollectors.prometheus(agent))
        .containsPattern(
            "sluice_loadbalancer_rerouted_spans_total\\{exporter=\"loadbalancing\"\\} [1-9]");
  }
}
