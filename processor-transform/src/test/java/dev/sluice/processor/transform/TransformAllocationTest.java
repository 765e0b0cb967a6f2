package dev.sluice.processor.transform;

import static dev.sluice.processor.transform.Harness.kv;
import static dev.sluice.processor.transform.Harness.resource;
import static dev.sluice.processor.transform.Harness.span;
import static dev.sluice.processor.transform.Harness.traces;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.BatchFunction;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.testkit.AllocationBound;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import org.junit.jupiter.api.Test;

/** What the processor allocates on the calling thread, per batch, on the paths that matter. */
class TransformAllocationTest {
  private static final int SPANS = 1_000;

  /** Spans of three events each, one of them an exception. */
  private static ExportTraceServiceRequest spansWithEvents() {
    Span[] spans = new Span[SPANS];
    for (int i = 0; i < SPANS; i++) {
      spans[i] =
          span("GET /users/" + i, kv("http.route", "/users/{id}")).toBuilder()
              .addEvents(SpanEventCases.event("start", 10, kv("k", "v")))
              .addEvents(SpanEventCases.event("exception", 20, kv("exception.type", "Timeout")))
              .addEvents(SpanEventCases.event("end", 30))
              .build();
    }
    return traces(resource("svc"), spans);
  }

  private static BatchFunction<TransformConfig> function(TransformConfig config) {
    return new TransformProcessorFactory()
        .createFunction(Harness.settings(new MetricRegistry()), config, Signal.TRACES);
  }

  @Test
  void aSpanEventWhereThatDoesNotHoldAllocatesNothingAndAnEditCostsInProportion() throws Exception {
    ExportTraceServiceRequest request = spansWithEvents();
    String missing =
        "trace_statements:\n"
            + "  - 'set(spanevent.attributes[\"x\"], \"y\") where spanevent.name == \"never\"'\n"
            + "  - context: spanevent\n    conditions: ['name == \"never\"']\n"
            + "    statements: ['set(name, \"x\")']\n";
    TransformConfig missingConfig = Harness.bind(missing);
    BatchFunction<TransformConfig> notMatching = function(missingConfig);
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, request.toByteArray()));
    try {
      notMatching.apply(batch, missingConfig); // classes load, views are made
      long bytes =
          AllocationBound.measure(() -> notMatching.apply(batch, missingConfig)).allocatedBytes();
      assertThat(bytes).as("1000 spans of 3 events, no event matching").isLessThan(1_000);
    } finally {
      batch.clear();
    }
    String matching =
        "trace_statements:\n"
            + "  - 'set(spanevent.attributes[\"x\"], \"y\") where spanevent.name == \"exception\"'\n";
    TransformConfig matchingConfig = Harness.bind(matching);
    BatchFunction<TransformConfig> editing = function(matchingConfig);
    Batch edited = Batch.of(new OtlpIndexer().index(Signal.TRACES, request.toByteArray()));
    try {
      AllocationBound.measure(() -> editing.apply(edited, matchingConfig))
          .assertWithin("1000 spans re-encoded, one event each", request.getSerializedSize());
    } finally {
      edited.clear();
    }
  }
}
