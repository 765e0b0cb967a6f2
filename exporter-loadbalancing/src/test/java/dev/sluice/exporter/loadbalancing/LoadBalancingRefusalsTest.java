package dev.sluice.exporter.loadbalancing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import io.grpc.Status;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Backends that refuse for their own reasons (credentials, version, a proxy in front) are left out
 * and their share goes to the others; only malformed data is rejected. Real gRPC servers on
 * loopback, each behind an interceptor as an authenticator or a proxy is.
 */
class LoadBalancingRefusalsTest {
  private static final int TRACES = 100;
  private static final int SPANS_PER_TRACE = 4;
  private static final int REQUESTS = 5;

  private final List<GatedBackend> backends = new ArrayList<>();
  private final List<String> names = new ArrayList<>();
  private LoadBalancingExporter exporter;

  @BeforeEach
  void startBackends() throws Exception {
    for (int i = 0; i < 3; i++) {
      GatedBackend backend = GatedBackend.start();
      backends.add(backend);
      names.add(backend.endpoint());
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (exporter != null) {
      exporter.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }
    for (GatedBackend backend : backends) {
      backend.close();
    }
  }

  private void startExporter() throws Exception {
    exporter =
        LoadBalancingExporterFactory.create(
            new ComponentSettings(
                ComponentId.parse("loadbalancing"), ComponentKind.EXPORTER, new MetricRegistry()),
            LoadBalancingExporterConfigTest.quickRetries(names),
            host -> {
              throw new AssertionError("no DNS here");
            },
            TimeUnit.SECONDS.toNanos(5));
    exporter.start();
  }

  private ExportResult send(ExportTraceServiceRequest request) throws InterruptedException {
    Batch batch = Spans.batch(request);
    try {
      return exporter.export(batch, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
    } finally {
      batch.clear();
    }
  }

  private static ExportTraceServiceRequest request(int number) {
    return Spans.request("checkout", 0, TRACES, SPANS_PER_TRACE, number);
  }

  /** The span IDs (hex) of every span in {@code requests}, duplicates kept. */
  private static List<String> spanIds(List<ExportTraceServiceRequest> requests) {
    List<String> ids = new ArrayList<>();
    for (ExportTraceServiceRequest request : requests) {
      for (ResourceSpans resource : request.getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            ids.add(HexFormat.of().formatHex(span.getSpanId().toByteArray()));
          }
        }
      }
    }
    return ids;
  }

  /** Spans of {@code request} whose trace the full ring gives to backend {@code index}. */
  private long spansOwnedBy(int index) {
    HashRing ring = new HashRing(List.copyOf(new TreeSet<>(names)));
    CRC32 crc = new CRC32();
    long owned = 0;
    for (int t = 0; t < TRACES; t++) {
      String owner =
          ring.backends().get(ring.ownerOf(HashRing.position(crc, Spans.traceId(t), 0, 16)));
      owned += names.indexOf(owner) == index ? SPANS_PER_TRACE : 0;
    }
    return owned;
  }

  @Test
  void sendsTheShareOfABackendWantingATokenAndOfOneBehindAFailingProxyToAHealthyOne()
      throws Exception {
    backends.get(0).requireToken("not-sent-by-the-tier");
    backends.get(1).refuseWith(Status.UNKNOWN.withDescription("HTTP status code 500"));
    startExporter();
    assertThat(spansOwnedBy(0)).isPositive();
    assertThat(spansOwnedBy(1)).isPositive();

    List<ExportTraceServiceRequest> sent = new ArrayList<>();
    for (int r = 0; r < REQUESTS; r++) {
      sent.add(request(r));
      assertThat(send(sent.get(r))).isEqualTo(ExportResult.SUCCESS);
    }

    // Every span sent arrived once, at the one healthy backend.
    assertThat(spanIds(backends.get(2).traces()))
        .hasSize(TRACES * SPANS_PER_TRACE * REQUESTS)
        .containsExactlyInAnyOrderElementsOf(spanIds(sent));
    assertThat(backends.get(0).traces()).isEmpty();
    assertThat(backends.get(1).traces()).isEmpty();
    assertThat(backends.get(0).refusedCalls()).isPositive();
    assertThat(backends.get(1).refusedCalls()).isPositive();
    assertThat(exporter.reroutedItems(Signal.TRACES))
        .isEqualTo(REQUESTS * (spansOwnedBy(0) + spansOwnedBy(1)));
  }

  @ParameterizedTest
  @EnumSource(
      value = Status.Code.class,
      names = {
        "UNAUTHENTICATED",
        "PERMISSION_DENIED",
        "UNIMPLEMENTED",
        "UNKNOWN",
        "INTERNAL",
        "NOT_FOUND",
        "FAILED_PRECONDITION",
        "RESOURCE_EXHAUSTED"
      })
  void aBackendsOwnRefusalIsReRoutedNotRejected(Status.Code code) throws Exception {
    // RESOURCE_EXHAUSTED without a retry delay is permanent by the OTLP rules, and the backend's.
    backends.get(0).refuseWith(Status.fromCode(code).withDescription("the backend's own reason"));
    startExporter();
    ExportTraceServiceRequest request = request(1);

    ExportResult result = send(request);

    assertThat(result).isEqualTo(ExportResult.SUCCESS);
    List<String> arrived = new ArrayList<>(spanIds(backends.get(1).traces()));
    arrived.addAll(spanIds(backends.get(2).traces()));
    assertThat(arrived).containsExactlyInAnyOrderElementsOf(spanIds(List.of(request)));
    assertThat(backends.get(0).refusedCalls()).as("refused once, not retried there").isEqualTo(1);
    assertThat(exporter.reroutedItems(Signal.TRACES)).isEqualTo(spansOwnedBy(0));
  }

  @Test
  void malformedDataIsRejectedAndNotReRouted() throws Exception {
    backends.get(0).refuseWith(Status.INVALID_ARGUMENT.withDescription("spans[3]: bad"));
    startExporter();
    ExportTraceServiceRequest request = request(1);

    ExportResult result = send(request);

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.SUCCESS);
    assertThat(result.rejectedUnits()).isEqualTo(spansOwnedBy(0));
    assertThat(result.message()).contains("INVALID_ARGUMENT");
    long arrived =
        spanIds(backends.get(1).traces()).size() + spanIds(backends.get(2).traces()).size();
    assertThat(arrived).isEqualTo(TRACES * SPANS_PER_TRACE - spansOwnedBy(0));
    assertThat(exporter.reroutedItems(Signal.TRACES)).isZero();
  }

  @Test
  void whenEveryBackendRefusesTheBatchIsAnsweredRetryableAndNothingIsRejected() throws Exception {
    for (GatedBackend backend : backends) {
      backend.requireToken("not-sent-by-the-tier");
    }
    startExporter();
    ExportTraceServiceRequest request = request(1);

    ExportResult refused = send(request);

    assertThat(refused.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(refused.rejectedUnits()).isZero();
    assertThat(refused.message())
        .contains("no backend left for " + TRACES * SPANS_PER_TRACE + " spans")
        .contains("UNAUTHENTICATED");
    assertThat(backends).allSatisfy(b -> assertThat(b.traces()).isEmpty());

    // The exporter's retry_on_failure sends the batch again; one backend has been put right.
    backends.get(1).open();
    assertThat(send(request)).isEqualTo(ExportResult.SUCCESS);
    assertThat(spanIds(backends.get(1).traces()))
        .containsExactlyInAnyOrderElementsOf(spanIds(List.of(request)));
  }
}
