package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Both contenders of the sampler benchmark keep the same spans and write the same tracestate. */
class ProbabilisticSamplerBenchmarkTest {
  @Test
  void sluiceAndProtobufJavaWriteTheSameSampledRequest() throws Exception {
    ProbabilisticSamplerBenchmark benchmark = new ProbabilisticSamplerBenchmark();
    benchmark.spans = 400;
    benchmark.setup();

    benchmark.sluice();
    benchmark.protobufJava();

    ExportTraceServiceRequest sluice =
        ExportTraceServiceRequest.parseFrom(benchmark.sluiceOutput());
    ExportTraceServiceRequest protobuf =
        ExportTraceServiceRequest.parseFrom(benchmark.protobufJavaOutput());
    assertThat(sluice).isEqualTo(protobuf);
    List<Span> kept = sluice.getResourceSpans(0).getScopeSpans(0).getSpansList();
    assertThat(kept.size()).isBetween(60, 140);
    assertThat(kept)
        .allSatisfy(s -> assertThat(s.getTraceState()).matches("ot=rv:[0-9a-f]{14};th:c"));
  }
}
