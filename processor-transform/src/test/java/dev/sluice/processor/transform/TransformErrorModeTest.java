package dev.sluice.processor.transform;

import static dev.sluice.processor.transform.Harness.kv;
import static dev.sluice.processor.transform.Harness.resource;
import static dev.sluice.processor.transform.Harness.span;
import static dev.sluice.processor.transform.Harness.traces;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.telemetry.MetricRegistry;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

/** A statement that fails for an item (Substring past the end of a short name), by error mode. */
class TransformErrorModeTest {
  private static final ExportTraceServiceRequest REQUEST =
      traces(resource("svc"), span("a-long-name"), span("ab"));

  private static String yaml(String mode) {
    return (mode == null ? "" : "error_mode: " + mode + "\n")
        + "trace_statements:\n"
        + "  - 'set(span.attributes[\"prefix\"], Substring(span.name, 0, 6))'\n"
        + "  - 'set(span.attributes[\"after\"], \"yes\")'\n";
  }

  private static long errors(MetricRegistry metrics) {
    return metrics
        .counter("sluice_processor_transform_statement_errors", "", "processor", "transform")
        .get();
  }

  @Test
  void propagateDropsTheBatchAndCountsTheFailure() throws Exception {
    MetricRegistry metrics = new MetricRegistry();
    ExportTraceServiceRequest out =
        (ExportTraceServiceRequest) Harness.run(yaml("propagate"), REQUEST, metrics);
    assertThat(out.getResourceSpansCount()).isZero();
    assertThat(errors(metrics)).isEqualTo(1);
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(strings = "ignore")
  void ignoreSkipsTheFailedStatementAndGoesOnAndIsTheDefault(String mode) throws Exception {
    MetricRegistry metrics = new MetricRegistry();
    ExportTraceServiceRequest out =
        (ExportTraceServiceRequest) Harness.run(yaml(mode), REQUEST, metrics);
    var spans = out.getResourceSpans(0).getScopeSpans(0).getSpansList();
    assertThat(spans.get(0).getAttributesList())
        .containsExactly(kv("prefix", "a-long"), kv("after", "yes"));
    assertThat(spans.get(1).getAttributesList()).containsExactly(kv("after", "yes"));
    assertThat(errors(metrics)).isEqualTo(1);
  }

  @Test
  void silentBehavesAsIgnoreAndStillCounts() throws Exception {
    MetricRegistry metrics = new MetricRegistry();
    ExportTraceServiceRequest out =
        (ExportTraceServiceRequest) Harness.run(yaml("silent"), REQUEST, metrics);
    assertThat(out.getResourceSpans(0).getScopeSpans(0).getSpans(1).getAttributesList())
        .containsExactly(kv("after", "yes"));
    assertThat(errors(metrics)).isEqualTo(1);
  }

  @Test
  void aGroupsErrorModeOverridesTheProcessors() throws Exception {
    MetricRegistry metrics = new MetricRegistry();
    String yaml =
        "error_mode: propagate\ntrace_statements:\n  - context: span\n    error_mode: ignore\n"
            + "    statements: ['set(attributes[\"p\"], Substring(name, 0, 6))']\n";
    ExportTraceServiceRequest out = (ExportTraceServiceRequest) Harness.run(yaml, REQUEST, metrics);
    assertThat(out.getResourceSpans(0).getScopeSpans(0).getSpansCount()).isEqualTo(2);
    assertThat(errors(metrics)).isEqualTo(1);
  }
}
