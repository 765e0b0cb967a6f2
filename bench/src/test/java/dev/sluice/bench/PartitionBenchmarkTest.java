package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import org.junit.jupiter.api.Test;

/** Both contenders of the partition benchmark write the same requests, one per part. */
class PartitionBenchmarkTest {
  @Test
  void sluiceAndProtobufJavaWriteTheSameParts() throws Exception {
    PartitionBenchmark benchmark = new PartitionBenchmark();
    benchmark.spans = 200;
    benchmark.setup();

    benchmark.sluice();
    benchmark.protobufJava();

    int spans = 0;
    for (int p = 0; p < PartitionBenchmark.PARTS; p++) {
      ExportTraceServiceRequest sluice =
          ExportTraceServiceRequest.parseFrom(benchmark.sluiceOutput(p));
      ExportTraceServiceRequest protobuf =
          ExportTraceServiceRequest.parseFrom(benchmark.protobufJavaOutput(p));
      assertThat(sluice).as("part " + p).isEqualTo(protobuf);
      int partSpans = sluice.getResourceSpans(0).getScopeSpans(0).getSpansCount();
      assertThat(partSpans).as("spans of part " + p).isPositive();
      spans += partSpans;
    }
    assertThat(spans).isEqualTo(200);
    benchmark.tearDown();
  }
}
