package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The benchmarks' setups produce valid inputs, and every contender produces the same request. */
class BenchmarkInputsTest {
  @Test
  void spanShapesAreDeterministicRealisticAndAbout400BytesPerSpan() throws Exception {
    byte[] bytes = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, 1000);
    assertThat(SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, 1000)).isEqualTo(bytes);
    assertThat(SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED + 1, 1000)).isNotEqualTo(bytes);
    assertThat(bytes.length / 1000.0).isBetween(350.0, 450.0);

    ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(bytes);
    assertThat(request.getResourceSpansCount()).isEqualTo(1);
    assertThat(request.getResourceSpans(0).getScopeSpansCount()).isEqualTo(1);
    List<Span> spans = request.getResourceSpans(0).getScopeSpans(0).getSpansList();
    assertThat(spans).hasSize(1000);
    for (Span span : spans) {
      assertThat(span.getTraceId().size()).isEqualTo(16);
      assertThat(span.getSpanId().size()).isEqualTo(8);
      assertThat(span.getParentSpanId().size()).isEqualTo(8);
      assertThat(span.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_SERVER);
      assertThat(span.getAttributesCount()).isEqualTo(10);
      assertThat(span.getEndTimeUnixNano()).isGreaterThan(span.getStartTimeUnixNano());
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {16, 1000})
  void indexBenchmarkReadsTheWholeRequest(int spans) throws Exception {
    IndexBenchmark benchmark = new IndexBenchmark();
    benchmark.spans = spans;
    benchmark.setup();

    assertThat(benchmark.sluice().unitCount()).isEqualTo(spans);
    assertThat(benchmark.sluice().sourceLength()).isEqualTo(benchmark.request.length);
    assertThat(benchmark.protobufJava())
        .isEqualTo(SpanShapes.toRequest(SpanShapes.spans(SpanShapes.DEFAULT_SEED, spans)));
  }

  @ParameterizedTest
  @ValueSource(ints = {16, 1000})
  void marshalBenchmarkContendersWriteTheSameRequest(int spans) throws Exception {
    MarshalBenchmark benchmark = new MarshalBenchmark();
    benchmark.spans = spans;
    benchmark.setup();
    ExportTraceServiceRequest expected =
        SpanShapes.toRequest(SpanShapes.spans(SpanShapes.DEFAULT_SEED, spans));
    byte[] expectedBytes = expected.toByteArray();

    // Twice each: the reused state must give the same output again.
    for (int round = 0; round < 2; round++) {
      assertThat(benchmark.sluice()).isEqualTo(expectedBytes.length);
      assertThat(benchmark.sluiceOutput()).isEqualTo(expectedBytes);
      assertThat(ExportTraceServiceRequest.parseFrom(benchmark.sluiceOutput())).isEqualTo(expected);

      assertThat(benchmark.protobufJava()).isEqualTo(expectedBytes.length);
      assertThat(benchmark.protobufJavaOutput()).isEqualTo(expectedBytes);
      assertThat(benchmark.protobufJavaWriteOnly()).isEqualTo(expectedBytes.length);
      assertThat(benchmark.protobufJavaOutput()).isEqualTo(expectedBytes);

      assertThat(benchmark.otelJava()).isEqualTo(2 * expectedBytes.length);
      assertThat(ExportTraceServiceRequest.parseFrom(benchmark.otelJavaOutput()))
          .isEqualTo(expected);
      assertThat(benchmark.otelJavaOutput()).isEqualTo(expectedBytes);
    }
  }

  @ParameterizedTest
  @CsvSource({
    "100, all, 100",
    "100, half, 50",
    "1000, all, 1000",
    "1000, half, 500",
    "10000, all, 4096",
    "10000, half, 4096"
  })
  void splitBenchmarkMovesTheHeadOfTheRequest(int requestSpans, String move, int moved)
      throws Exception {
    SplitBenchmark benchmark = new SplitBenchmark();
    benchmark.requestSpans = requestSpans;
    benchmark.move = move;
    benchmark.setup();
    assertThat(benchmark.moveSpans).isEqualTo(moved);

    List<Span> requestSpanList =
        spans(SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, requestSpans));
    List<Span> pendingSpanList =
        spans(SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED + 1, SplitBenchmark.PENDING_SPANS));
    List<Span> expected = new ArrayList<>(pendingSpanList);
    expected.addAll(requestSpanList.subList(0, moved));

    for (int round = 0; round < 2; round++) {
      Batch rest = benchmark.sluice();
      assertThat(rest.unitCount()).isEqualTo(requestSpans - moved);
      assertThat(benchmark.pending.unitCount()).isEqualTo(SplitBenchmark.PENDING_SPANS + moved);
      assertThat(spans(OtlpMarshaler.toByteArray(benchmark.pending))).isEqualTo(expected);
      assertThat(spans(OtlpMarshaler.toByteArray(rest)))
          .isEqualTo(requestSpanList.subList(moved, requestSpans));

      assertThat(benchmark.sluiceResetOnly().unitCount()).isEqualTo(requestSpans);
      assertThat(benchmark.pending.unitCount()).isEqualTo(SplitBenchmark.PENDING_SPANS);

      assertThat(benchmark.protobufJava()).isEqualTo(SplitBenchmark.PENDING_SPANS + moved);
      assertThat(benchmark.pendingScope.getSpansList()).isEqualTo(pendingSpanList);

      SplitBenchmark.AddOnly addOnly = new SplitBenchmark.AddOnly();
      addOnly.setup(benchmark);
      addOnly.undo();
      assertThat(benchmark.protobufJavaAddOnly(addOnly))
          .isEqualTo(SplitBenchmark.PENDING_SPANS + moved);
      assertThat(addOnly.pending.getSpansList()).isEqualTo(expected);
      addOnly.undo();
      assertThat(addOnly.pending.getSpansList()).isEqualTo(pendingSpanList);

      assertThat(benchmark.removeHead()).isEqualTo(SplitBenchmark.PENDING_SPANS + moved);
      assertThat(benchmark.queue).isEqualTo(requestSpanList);
      assertThat(benchmark.batchList).isEqualTo(pendingSpanList);
    }
  }

  private static List<Span> spans(byte[] request) throws Exception {
    ExportTraceServiceRequest parsed = ExportTraceServiceRequest.parseFrom(request);
    List<Span> spans = new ArrayList<>();
    parsed.getResourceSpansList().stream()
        .flatMap(r -> r.getScopeSpansList().stream())
        .forEach(s -> spans.addAll(s.getSpansList()));
    return spans;
  }
}
