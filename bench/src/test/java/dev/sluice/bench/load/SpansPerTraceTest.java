package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.sluice.bench.SpanShapes;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code generate --spans-per-trace N}: traces of N spans, and fresh trace IDs every cycle. */
class SpansPerTraceTest {
  private static final int SPANS = 1000;
  private static final int DISTINCT = 3;

  private static Workload workload(RequestShapes.SpanShape shape, int spansPerTrace) {
    return Workload.build(
        new Workload.Spec(Signal.TRACES, shape, SPANS, 150, 7, DISTINCT, 42, spansPerTrace));
  }

  private static List<Span> spans(byte[] request) throws Exception {
    return ExportTraceServiceRequest.parseFrom(request)
        .getResourceSpans(0)
        .getScopeSpans(0)
        .getSpansList();
  }

  private static Set<ByteString> traceIds(byte[] request) throws Exception {
    Set<ByteString> ids = new HashSet<>();
    for (Span span : spans(request)) {
      ids.add(span.getTraceId());
    }
    return ids;
  }

  @ParameterizedTest
  @EnumSource(
      value = RequestShapes.SpanShape.class,
      names = {"REALISTIC", "MINIMAL"})
  void requestsIndexAndHoldTracesOfNSpansInterleavedAndCloseInTime(RequestShapes.SpanShape shape)
      throws Exception {
    Workload workload = workload(shape, 5);
    assertThat(workload.itemsPerRequest()).isEqualTo(SPANS);
    assertThat(workload.description()).contains("in traces of 5");
    for (long n = 0; n < 3 * DISTINCT; n++) {
      byte[] body = workload.body(n);
      assertThat(new OtlpIndexer().index(Signal.TRACES, body).unitCount()).isEqualTo(SPANS);
      List<Span> spans = spans(body);
      Map<ByteString, List<Span>> traces = new LinkedHashMap<>();
      for (Span span : spans) {
        traces.computeIfAbsent(span.getTraceId(), id -> new ArrayList<>()).add(span);
      }
      assertThat(traces).hasSize(SPANS / 5);
      for (List<Span> trace : traces.values()) {
        assertThat(trace).hasSize(5);
        long earliest = trace.stream().mapToLong(Span::getStartTimeUnixNano).min().getAsLong();
        long latest = trace.stream().mapToLong(Span::getStartTimeUnixNano).max().getAsLong();
        assertThat(latest - earliest).as("a trace's spans start within 4 ms").isEqualTo(4_000_000);
      }
      // Interleaved: the first SPANS / 5 spans are each of another trace.
      assertThat(spans.subList(0, SPANS / 5).stream().map(Span::getTraceId).distinct())
          .hasSize(SPANS / 5);
    }
  }

  @Test
  void laterCyclesOfARequestHaveDisjointTraceIdsAndOtherwiseTheSameBytes() throws Exception {
    Workload workload = workload(RequestShapes.SpanShape.REALISTIC, 5);
    Set<ByteString> seen = new HashSet<>();
    for (int request = 0; request < DISTINCT; request++) {
      byte[] first = workload.body(request);
      assertThat(first).isSameAs(workload.requests().get(request));
      for (long cycle = 0; cycle < 4; cycle++) {
        byte[] body = workload.body(cycle * DISTINCT + request);
        Set<ByteString> ids = traceIds(body);
        assertThat(ids).hasSize(SPANS / 5);
        for (ByteString id : ids) {
          assertThat(seen.add(id)).as("trace ID seen in an earlier send").isTrue();
          assertThat(id.toByteArray()).isNotEqualTo(new byte[16]);
        }
        assertThat(body).hasSameSizeAs(first);
        Set<Integer> idBytes = new HashSet<>();
        for (int offset : workload.traceIdOffsets().get(request)) {
          for (int b = 0; b < 8; b++) {
            idBytes.add(offset + b);
          }
        }
        assertThat(idBytes).hasSize(SPANS * 8);
        for (int i = 0; i < body.length; i++) {
          if (!idBytes.contains(i)) {
            assertThat(body[i]).as("byte %d of cycle %d", i, cycle).isEqualTo(first[i]);
          }
        }
      }
      assertThat(workload.body(DISTINCT + request)).isNotSameAs(workload.body(DISTINCT + request));
    }
  }

  @Test
  void spansInTracesAreTheSpansOfTheRequestWithTraceIdsAndTimesMoved() throws Exception {
    Workload workload = workload(RequestShapes.SpanShape.REALISTIC, 5);
    List<Span> before =
        spans(RequestShapes.traces(RequestShapes.SpanShape.REALISTIC, SPANS, 42).toByteArray());
    List<Span> after = spans(workload.requests().get(0));
    for (int i = 0; i < SPANS; i++) {
      Span a = before.get(i);
      Span b = after.get(i);
      assertThat(b.getEndTimeUnixNano() - b.getStartTimeUnixNano())
          .isEqualTo(a.getEndTimeUnixNano() - a.getStartTimeUnixNano());
      assertThat(withoutTraceAndTimes(b)).isEqualTo(withoutTraceAndTimes(a));
    }
  }

  private static Span withoutTraceAndTimes(Span span) {
    return span.toBuilder().clearTraceId().clearStartTimeUnixNano().clearEndTimeUnixNano().build();
  }

  @ParameterizedTest
  @EnumSource(RequestShapes.SpanShape.class)
  void oneSpanPerTraceSendsTheSameBytesAsBeforeInEveryCycle(RequestShapes.SpanShape shape) {
    int items = shape == RequestShapes.SpanShape.ATTRS_20X5000 ? 10 : 200;
    Workload workload =
        Workload.build(new Workload.Spec(Signal.TRACES, shape, items, 150, 7, DISTINCT, 42, 1));
    assertThat(workload.traceIdOffsets()).isEmpty();
    assertThat(workload.description()).doesNotContain("traces of");
    for (long n = 0; n < 3 * DISTINCT; n++) {
      int request = (int) (n % DISTINCT);
      assertThat(workload.body(n))
          .isSameAs(workload.requests().get(request))
          .isEqualTo(RequestShapes.traces(shape, items, 42 + request).toByteArray());
    }
    if (shape == RequestShapes.SpanShape.REALISTIC) {
      assertThat(workload.requests().get(0)).isEqualTo(SpanShapes.requestBytes(42, items));
    }
  }

  @Test
  void spansPerTraceAreForTracesOnly() {
    assertThatThrownBy(
            () ->
                new Workload.Spec(
                    Signal.LOGS, RequestShapes.SpanShape.REALISTIC, 10, 1, 1, 1, 42, 5))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
