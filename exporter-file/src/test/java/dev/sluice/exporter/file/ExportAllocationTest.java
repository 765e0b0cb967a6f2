package dev.sluice.exporter.file;

import static dev.sluice.exporter.file.TestExporters.batch;
import static dev.sluice.exporter.file.TestExporters.start;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ExportResult;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.ManualScheduler;
import dev.sluice.testkit.SequencedSpans;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What one export allocates once the exporter's buffers have grown. The exporter's own work
 * (marshal, compress, copy into the file's buffer) is a fixed amount per batch, nothing per span: a
 * batch of 4000 spans as protobuf costs less than the fixed allowance of the edge's bound ({@link
 * AllocationBound#FIXED_BYTES}), where even 16 bytes per span would not fit. JSON adds what the
 * shared {@code OtlpJsonEncoder} allocates (a String per 64-bit integer), held to the edge's bound
 * for the request's size.
 */
class ExportAllocationTest {
  private static final int SPANS = 4000;
  private static final int WARM_UP_ROUNDS = 5;

  @TempDir Path dir;

  private AllocationBound.Outcome steadyExport(
      String format, String compression, ExportTraceServiceRequest request) throws Exception {
    ManualScheduler scheduler = new ManualScheduler();
    FileExporter exporter =
        start(
            "path: " + dir.resolve("out") + "\nformat: " + format + "\ncompression: " + compression,
            scheduler);
    Batch batch = batch(Signal.TRACES, request);
    long deadline = scheduler.nanoTime() + TimeUnit.HOURS.toNanos(1);
    for (int i = 0; i < WARM_UP_ROUNDS; i++) {
      assertThat(exporter.export(batch, deadline)).isEqualTo(ExportResult.SUCCESS);
    }
    AllocationBound.Outcome outcome =
        AllocationBound.measure(
            () -> assertThat(exporter.export(batch, deadline)).isEqualTo(ExportResult.SUCCESS));
    exporter.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
    assertThat(outcome.thrown()).isNull();
    return outcome;
  }

  @ParameterizedTest(name = "proto, compression {0}")
  @ValueSource(strings = {"none", "zstd"})
  void aSteadyProtoExportAllocatesNothingPerSpan(String compression) throws Exception {
    AllocationBound.Outcome outcome =
        steadyExport("proto", compression, SequencedSpans.request("svc", 0, SPANS));

    assertThat(outcome.allocatedBytes())
        .as("bytes allocated by one export of %d spans", SPANS)
        .isLessThan(AllocationBound.FIXED_BYTES);
  }

  @ParameterizedTest(name = "json, compression {0}")
  @ValueSource(strings = {"none", "zstd"})
  void aSteadyJsonExportStaysWithinTheEdgesBound(String compression) throws Exception {
    ExportTraceServiceRequest request = SequencedSpans.request("svc", 0, SPANS);

    steadyExport("json", compression, request)
        .assertWithin("one JSON export of " + SPANS + " spans", request.getSerializedSize());
  }
}
