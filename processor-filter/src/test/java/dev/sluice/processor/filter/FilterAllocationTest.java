package dev.sluice.processor.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.BatchFunction;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.testkit.AllocationBound;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import org.junit.jupiter.api.Test;

/**
 * Filtering a large request with the common span conditions allocates a small fixed amount (the
 * batch's bookkeeping of the request it edits), not something per span: under 1 KiB for 1000 spans
 * of which a third are dropped.
 */
class FilterAllocationTest {
  private static final int SPANS = 1_000;
  private static final int EVERY_THIRD = 3;
  private static final long MAX_BYTES_PER_REQUEST = 1024;

  @Test
  void filteringAThousandSpansAllocatesUnderOneKibibyte() throws Exception {
    String yaml =
        "error_mode: propagate\n"
            + "traces:\n"
            + "  span:\n"
            + "    - attributes[\"http.route\"] == \"/health\"\n"
            + "    - name == \"OPTIONS\" or IsMatch(attributes[\"http.route\"], \"^/admin/\")\n"
            + "    - attributes[\"http.route\"] != nil and attributes[\"tenant\"] == \"test\"\n";
    FilterConfig config = Otlp.config(yaml);
    BatchFunction<FilterConfig> filter =
        new FilterProcessorFactory()
            .createFunction(Otlp.settings(new MetricRegistry()), config, Signal.TRACES);
    ScopeSpans.Builder scope = ScopeSpans.newBuilder().setScope(Otlp.scope("tomcat"));
    for (int i = 0; i < SPANS; i++) {
      String route = i % EVERY_THIRD == 0 ? "/health" : "/api/users/" + i;
      scope.addSpans(Otlp.span("GET " + route, route));
    }
    byte[] request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder().setResource(Otlp.resource("a")).addScopeSpans(scope))
            .build()
            .toByteArray();
    OtlpIndex index = new OtlpIndexer().index(Signal.TRACES, request);
    long[] kept = new long[1];
    AllocationBound.Call once =
        () -> {
          Batch batch = Batch.of(index);
          try {
            filter.apply(batch, config);
            kept[0] = batch.unitCount();
          } finally {
            batch.clear();
          }
        };
    once.run(); // classes load, buffers grow
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      least = Math.min(least, AllocationBound.measure(once).allocatedBytes());
    }
    assertThat(kept[0]).isEqualTo(SPANS - (SPANS + EVERY_THIRD - 1) / EVERY_THIRD);
    assertThat(least)
        .as("bytes allocated filtering %d spans", SPANS)
        .isLessThan(MAX_BYTES_PER_REQUEST);
  }
}
