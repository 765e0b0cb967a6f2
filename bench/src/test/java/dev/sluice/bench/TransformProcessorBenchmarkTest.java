package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Both contenders of the transform benchmark write the same request, health checks marked. */
class TransformProcessorBenchmarkTest {
  @Test
  void sluiceAndProtobufJavaWriteTheSameTransformedRequest() throws Exception {
    TransformProcessorBenchmark benchmark = new TransformProcessorBenchmark();
    benchmark.spans = 200;
    benchmark.setup();

    benchmark.sluice();
    benchmark.protobufJava();

    ExportTraceServiceRequest sluice =
        ExportTraceServiceRequest.parseFrom(benchmark.sluiceOutput());
    ExportTraceServiceRequest protobuf =
        ExportTraceServiceRequest.parseFrom(benchmark.protobufJavaOutput());
    assertThat(sluice).isEqualTo(protobuf);
    List<Span> spans = sluice.getResourceSpans(0).getScopeSpans(0).getSpansList();
    long marked =
        spans.stream()
            .filter(s -> s.getAttributesList().stream().anyMatch(a -> a.getKey().equals("x")))
            .count();
    // About one span in six is a health check.
    assertThat(marked).isBetween(spans.size() / 10L, spans.size() / 4L);
  }
}
