package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.rpc.RetryInfo;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class OtlpGrpcExporterTest {
  private OtlpSink sink;
  private OtlpGrpcExporter exporter;
  private final List<OtlpGrpcExporter> started = new ArrayList<>();

  private OtlpGrpcExporter exporter(String compression, Map<String, String> headers)
      throws Exception {
    return exporter(compression, CompressionParams.DEFAULT, headers);
  }

  /** Starts an exporter to the test's sink, which the first one starts. */
  private OtlpGrpcExporter exporter(
      String compression, CompressionParams compressionParams, Map<String, String> headers)
      throws Exception {
    if (sink == null) {
      sink = OtlpSink.start();
    }
    OtlpExporterConfig defaults = OtlpExporterConfig.DEFAULT;
    OtlpExporterConfig config =
        new OtlpExporterConfig(
            sink.endpoint(),
            new TlsClientConfig(true, "", "", "", false, ""),
            headers,
            compression,
            compressionParams,
            Duration.ofSeconds(5),
            defaults.sendingQueue(),
            defaults.retryOnFailure(),
            null,
            "round_robin",
            "",
            false);
    exporter =
        (OtlpGrpcExporter)
            new OtlpExporterFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("otlp"), ComponentKind.EXPORTER, new MetricRegistry()),
                    config);
    exporter.start();
    started.add(exporter);
    return exporter;
  }

  @AfterEach
  void stop() throws Exception {
    for (OtlpGrpcExporter e : started) {
      e.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }
    if (sink != null) {
      sink.close();
    }
  }

  private static long deadline() {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "zstd", "none"})
  void deliversABatchThatProtobufJavaParsesToTheSameRequest(String compression) throws Exception {
    exporter(compression, Map.of("x-tenant", "blue"));
    OtlpIndex request = SequencedSpans.indexed("svc", 0, 500);

    ExportResult result = exporter.export(Batch.of(request), deadline());

    assertThat(result).isEqualTo(ExportResult.SUCCESS);
    assertThat(sink.traces()).containsExactly(SequencedSpans.request("svc", 0, 500));
    Metadata headers = sink.headers().get(0);
    assertThat(headers.get(Metadata.Key.of("x-tenant", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo("blue");
    String encoding =
        headers.get(Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER));
    assertThat(encoding).isEqualTo("none".equals(compression) ? null : compression);
  }

  @ParameterizedTest
  @CsvSource({"gzip, 1, 9", "zstd, 1, 19"})
  void compressesAtTheConfiguredLevelAndDeliversIntact(String compression, int fast, int small)
      throws Exception {
    ExportResult fastResult =
        exporter(compression, new CompressionParams(fast), Map.of())
            .export(Batch.of(SequencedSpans.indexed("svc", 0, 1000)), deadline());
    ExportResult smallResult =
        exporter(compression, new CompressionParams(small), Map.of())
            .export(Batch.of(SequencedSpans.indexed("svc", 0, 1000)), deadline());

    assertThat(fastResult).isEqualTo(ExportResult.SUCCESS);
    assertThat(smallResult).isEqualTo(ExportResult.SUCCESS);
    ExportTraceServiceRequest expected = SequencedSpans.request("svc", 0, 1000);
    assertThat(sink.traces()).containsExactly(expected, expected);
    assertThat(sink.headers())
        .extracting(h -> h.get(Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER)))
        .containsExactly(compression, compression);
    List<Long> wireSizes = sink.wireSizes();
    assertThat(wireSizes).hasSize(2);
    assertThat(wireSizes.get(1)).isLessThan(wireSizes.get(0));
    assertThat(wireSizes.get(0)).isLessThan(expected.getSerializedSize() / 4L);
  }

  @Test
  void reportsUnavailableAsRetryable() throws Exception {
    exporter("gzip", Map.of());
    sink.failNext(() -> Status.UNAVAILABLE.withDescription("restarting").asRuntimeException());

    ExportResult result =
        exporter.export(Batch.of(SequencedSpans.indexed("svc", 0, 3)), deadline());

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(result.message()).contains("UNAVAILABLE").contains("restarting");
  }

  @Test
  void reportsInvalidArgumentAsPermanent() throws Exception {
    exporter("gzip", Map.of());
    sink.failNext(() -> Status.INVALID_ARGUMENT.asRuntimeException());

    ExportResult result =
        exporter.export(Batch.of(SequencedSpans.indexed("svc", 0, 3)), deadline());

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.PERMANENT);
    assertThat(result.malformed()).as("the data's own fault").isTrue();
  }

  @Test
  void reportsUnauthenticatedAsPermanentButNotTheDatasFault() throws Exception {
    exporter("gzip", Map.of());
    sink.failNext(() -> Status.UNAUTHENTICATED.asRuntimeException());

    ExportResult result =
        exporter.export(Batch.of(SequencedSpans.indexed("svc", 0, 3)), deadline());

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.PERMANENT);
    assertThat(result.malformed()).isFalse();
  }

  @Test
  void retriesResourceExhaustedOnlyWithRetryInfoAndKeepsItsDelay() throws Exception {
    exporter("gzip", Map.of());
    com.google.rpc.Status withRetryInfo =
        com.google.rpc.Status.newBuilder()
            .setCode(Status.Code.RESOURCE_EXHAUSTED.value())
            .setMessage("slow down")
            .addDetails(
                Any.pack(
                    RetryInfo.newBuilder()
                        .setRetryDelay(
                            com.google.protobuf.Duration.newBuilder().setSeconds(2).setNanos(500))
                        .build()))
            .build();
    sink.failNext(
        () -> Status.RESOURCE_EXHAUSTED.asRuntimeException(),
        () -> StatusProto.toStatusRuntimeException(withRetryInfo));

    ExportResult without =
        exporter.export(Batch.of(SequencedSpans.indexed("svc", 0, 1)), deadline());
    ExportResult with = exporter.export(Batch.of(SequencedSpans.indexed("svc", 0, 1)), deadline());

    assertThat(without.outcome()).isEqualTo(ExportResult.Outcome.PERMANENT);
    assertThat(with.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(with.retryAfterNanos()).isEqualTo(2_000_000_500L);
  }

  @Test
  void reportsPartialSuccessWithTheRejectedCount() throws Exception {
    exporter("gzip", Map.of());
    sink.rejectPartially(4);

    ExportResult result =
        exporter.export(Batch.of(SequencedSpans.indexed("svc", 0, 10)), deadline());

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.SUCCESS);
    assertThat(result.rejectedUnits()).isEqualTo(4);
    assertThat(result.message()).isEqualTo("too old");
  }

  @Test
  void reportsADeadlinePassedAsRetryable() throws Exception {
    exporter("gzip", Map.of());
    sink.hold();

    ExportResult result =
        exporter.export(
            Batch.of(SequencedSpans.indexed("svc", 0, 1)),
            System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200));

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(result.message()).contains("DEADLINE_EXCEEDED");
  }
}
