package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.Processor;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Both contenders of the tail sampling benchmark keep the same spans of the same requests. */
class TailSamplingBenchmarkTest {
  @Test
  void sluiceAndProtobufJavaKeepTheSameTraces() throws Exception {
    Set<ByteString> sluice = new HashSet<>();
    BatchConsumer recording =
        batch -> {
          try {
            spanIds(ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch)), sluice);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
          batch.clear();
          return Admission.ACCEPTED;
        };
    TailSamplingBenchmark.ManualClock clock = new TailSamplingBenchmark.ManualClock();
    Processor processor = TailSamplingBenchmark.processor(clock, recording);
    processor.start();
    Set<ByteString> naive = new HashSet<>();
    TailSamplingBenchmark.NaiveTailSampling naiveSampler =
        new TailSamplingBenchmark.NaiveTailSampling();
    int all = 0;
    try {
      for (int i = 0; i < 4; i++) {
        ExportTraceServiceRequest request =
            TailSamplingBenchmark.request(SpanShapes.DEFAULT_SEED + i, 1000);
        all += 1000;
        processor.consume(Batch.of(new OtlpIndexer().index(Signal.TRACES, request.toByteArray())));
        clock.advance(TimeUnit.SECONDS.toNanos(1));
        spanIds(naiveSampler.decide(request), naive);
      }
    } finally {
      processor.shutdown(System.nanoTime());
    }
    assertThat(sluice).isEqualTo(naive);
    // Some traces kept, most not: the policies decide something.
    assertThat(sluice.size()).isBetween(all / 20, all / 2);
  }

  private static void spanIds(ExportTraceServiceRequest request, Set<ByteString> into) {
    for (ResourceSpans resource : request.getResourceSpansList()) {
      for (ScopeSpans scope : resource.getScopeSpansList()) {
        for (Span span : scope.getSpansList()) {
          into.add(span.getSpanId());
        }
      }
    }
  }
}
