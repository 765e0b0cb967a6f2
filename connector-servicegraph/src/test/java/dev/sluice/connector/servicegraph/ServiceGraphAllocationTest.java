package dev.sluice.connector.servicegraph;

import static dev.sluice.connector.servicegraph.Harness.call;
import static dev.sluice.connector.servicegraph.Harness.service;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.testkit.AllocationBound;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import org.junit.jupiter.api.Test;

/** Pairing spans into edges of series that exist allocates nothing per span. */
class ServiceGraphAllocationTest {
  private static final int CALLS = 500;

  /** What a call may allocate whatever its size: the visit's bookkeeping, not per span. */
  private static final long FIXED_BYTES = 4 * 1024;

  @Test
  void pairingSpansIntoExistingSeriesAllocatesNothingPerSpan() throws Exception {
    Harness h = new Harness("");
    ScopeSpans.Builder clients = ScopeSpans.newBuilder();
    ScopeSpans.Builder servers = ScopeSpans.newBuilder();
    for (int i = 0; i < CALLS; i++) {
      Span.Builder[] c = call(SpanKind.SPAN_KIND_CLIENT, SpanKind.SPAN_KIND_SERVER, 3 + i % 40, 2);
      clients.addSpans(c[0]);
      servers.addSpans(i % 10 == 0 ? Harness.error(c[1]) : c[1]);
    }
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder().setResource(service("web")).addScopeSpans(clients))
            .addResourceSpans(
                ResourceSpans.newBuilder().setResource(service("api")).addScopeSpans(servers))
            .build();
    OtlpIndex index = new OtlpIndexer().index(Signal.TRACES, request.toByteArray());
    for (int i = 0; i < 3; i++) { // makes the series and the edges, and warms the code up
      assertThat(h.connector.consume(Batch.of(index))).isEqualTo(Admission.ACCEPTED);
    }
    assertThat(h.connector.openEdges()).isZero();

    Batch batch = Batch.of(index);
    Admission[] answer = new Admission[1];
    AllocationBound.Outcome outcome =
        AllocationBound.measure(() -> answer[0] = h.connector.consume(batch));

    assertThat(outcome.thrown()).isNull();
    assertThat(answer[0]).isEqualTo(Admission.ACCEPTED);
    assertThat(outcome.allocatedBytes())
        .as("bytes allocated pairing %d spans", 2 * CALLS)
        .isLessThan(FIXED_BYTES);
  }
}
