package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import org.junit.jupiter.api.Test;

/** Both contenders of the attributes benchmark write the same request, with both edits made. */
class AttributesProcessorBenchmarkTest {
  @Test
  void sluiceAndProtobufJavaWriteTheSameEditedRequest() throws Exception {
    AttributesProcessorBenchmark benchmark = new AttributesProcessorBenchmark();
    benchmark.spans = 50;
    benchmark.setup();

    benchmark.sluice();
    benchmark.protobufJava();

    ExportTraceServiceRequest sluice =
        ExportTraceServiceRequest.parseFrom(benchmark.sluiceOutput());
    ExportTraceServiceRequest protobuf =
        ExportTraceServiceRequest.parseFrom(benchmark.protobufJavaOutput());
    assertThat(sluice).isEqualTo(protobuf);
    for (Span span : sluice.getResourceSpans(0).getScopeSpans(0).getSpansList()) {
      assertThat(span.getAttributesList())
          .extracting(KeyValue::getKey)
          .contains(AttributesProcessorBenchmark.KEY)
          .doesNotContain(AttributesProcessorBenchmark.DELETED);
    }
    ExportTraceServiceRequest original = ExportTraceServiceRequest.parseFrom(benchmark.request);
    assertThat(original.getResourceSpans(0).getScopeSpans(0).getSpans(0).getAttributesList())
        .extracting(KeyValue::getKey)
        .contains(AttributesProcessorBenchmark.DELETED);
  }
}
