package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import org.junit.jupiter.api.Test;

/** The contenders of the edit benchmark produce the same request, with the attribute upserted. */
class EditBenchmarkTest {
  @Test
  void sluiceAndProtobufJavaWriteTheSameEditedRequest() throws Exception {
    EditBenchmark benchmark = new EditBenchmark();
    benchmark.spans = 50;
    benchmark.setup();

    benchmark.sluice();
    benchmark.protobufJava();

    ExportTraceServiceRequest sluice =
        ExportTraceServiceRequest.parseFrom(benchmark.sluiceOutput());
    ExportTraceServiceRequest protobuf =
        ExportTraceServiceRequest.parseFrom(benchmark.protobufJavaOutput());
    assertThat(sluice).isEqualTo(protobuf);
    Span span = sluice.getResourceSpans(0).getScopeSpans(0).getSpans(7);
    assertThat(span.getAttributesList())
        .filteredOn(a -> a.getKey().equals(EditBenchmark.KEY))
        .singleElement()
        .satisfies(a -> assertThat(a.getValue().getStringValue()).isEqualTo(EditBenchmark.VALUE));
    assertThat(sluice).isNotEqualTo(ExportTraceServiceRequest.parseFrom(benchmark.request));
  }

  @Test
  void thePutWritesTheBytesOfTheUpsertAction() throws Exception {
    EditBenchmark benchmark = new EditBenchmark();
    benchmark.spans = 50;
    benchmark.setup();

    benchmark.sluice();
    byte[] upsertAction = benchmark.sluiceOutput();
    benchmark.sluiceSpanEditor();

    assertThat(benchmark.sluiceOutput()).isEqualTo(upsertAction);
  }
}
