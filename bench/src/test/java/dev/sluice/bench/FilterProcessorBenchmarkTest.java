package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Both contenders of the filter benchmark write the same request, without the health checks. */
class FilterProcessorBenchmarkTest {
  @Test
  void sluiceAndProtobufJavaWriteTheSameFilteredRequest() throws Exception {
    FilterProcessorBenchmark benchmark = new FilterProcessorBenchmark();
    benchmark.spans = 200;
    benchmark.setup();

    benchmark.sluice();
    benchmark.protobufJava();

    ExportTraceServiceRequest sluice =
        ExportTraceServiceRequest.parseFrom(benchmark.sluiceOutput());
    ExportTraceServiceRequest protobuf =
        ExportTraceServiceRequest.parseFrom(benchmark.protobufJavaOutput());
    assertThat(sluice).isEqualTo(protobuf);
    List<Span> kept = sluice.getResourceSpans(0).getScopeSpans(0).getSpansList();
    List<Span> all =
        ExportTraceServiceRequest.parseFrom(benchmark.request)
            .getResourceSpans(0)
            .getScopeSpans(0)
            .getSpansList();
    // About one span in six is a health check.
    assertThat(kept.size()).isBetween(all.size() * 3 / 4, all.size() * 9 / 10);
    assertThat(kept)
        .noneSatisfy(
            span ->
                assertThat(span.getAttributesList())
                    .anySatisfy(
                        a -> assertThat(a.getValue().getStringValue()).isEqualTo("/health")));
  }
}
