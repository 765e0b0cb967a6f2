package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import org.junit.jupiter.api.Test;

/** Both contenders of the resource detection benchmark produce the same request. */
class ResourceDetectionBenchmarkTest {
  @Test
  void sluiceAndProtobufJavaWriteTheSameRequestWithTheDetectedResource() throws Exception {
    ResourceDetectionBenchmark benchmark = new ResourceDetectionBenchmark();
    benchmark.spans = 50;
    benchmark.setup();

    benchmark.sluice();
    benchmark.protobufJava();

    ExportTraceServiceRequest sluice =
        ExportTraceServiceRequest.parseFrom(benchmark.sluiceOutput());
    ExportTraceServiceRequest protobuf =
        ExportTraceServiceRequest.parseFrom(benchmark.protobufJavaOutput());
    assertThat(sluice).isEqualTo(protobuf);
    assertThat(sluice.getResourceSpans(0).getResource().getAttributesList())
        .filteredOn(a -> a.getKey().equals("host.name"))
        .singleElement()
        .extracting(KeyValue::getValue)
        .satisfies(
            v -> assertThat(v.getStringValue()).isEqualTo(ResourceDetectionBenchmark.HOSTNAME));
    assertThat(sluice).isNotEqualTo(ExportTraceServiceRequest.parseFrom(benchmark.request));
    assertThat(sluice.getResourceSpans(0).getScopeSpans(0).getSpansCount()).isEqualTo(50);
  }
}
