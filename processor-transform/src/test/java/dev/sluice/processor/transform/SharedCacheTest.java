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
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import org.junit.jupiter.api.Test;

class SharedCacheTest {
  private static ExportTraceServiceRequest run(
      BatchFunction<TransformConfig> function, TransformConfig config, ExportTraceServiceRequest in)
      throws Exception {
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, in.toByteArray()));
    try {
      function.apply(batch, config);
      return ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch));
    } finally {
      batch.clear();
    }
  }

  @Test
  void aSharedCacheStartsEmptyForEachBatch() throws Exception {
    TransformConfig config =
        Harness.bind(
            "trace_statements:\n"
                + SharedCacheCases.WRITER
                + "  - context: span\n    shared_cache: true\n"
                + "    statements: ['set(attributes[\"seen\"], cache[\"first\"])']\n");
    BatchFunction<TransformConfig> function =
        new TransformProcessorFactory()
            .createFunction(Harness.settings(new MetricRegistry()), config, Signal.TRACES);
    assertThat(run(function, config, traces(resource("svc"), span("a"))))
        .isEqualTo(traces(resource("svc"), span("a", kv("seen", "a"))));
    assertThat(run(function, config, traces(resource("svc"), span("b"))))
        .as("the next batch does not see the value the first one cached")
        .isEqualTo(traces(resource("svc"), span("b")));
  }
}
