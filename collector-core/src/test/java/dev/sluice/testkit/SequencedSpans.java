package dev.sluice.testkit;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;

/**
 * Trace requests whose spans are numbered in their names ({@code "7"}), so tests can check that
 * every span arrives once and in order.
 */
public final class SequencedSpans {
  private SequencedSpans() {}

  /** A request with spans numbered {@code first} to {@code first + count - 1}. */
  public static ExportTraceServiceRequest request(String service, int first, int count) {
    ScopeSpans.Builder scope =
        ScopeSpans.newBuilder().setScope(InstrumentationScope.newBuilder().setName("test"));
    for (int i = first; i < first + count; i++) {
      scope.addSpans(
          Span.newBuilder()
              .setTraceId(ByteString.copyFrom(new byte[16]))
              .setSpanId(ByteString.copyFrom(new byte[8]))
              .setName(Integer.toString(i))
              .setKind(Span.SpanKind.SPAN_KIND_SERVER)
              .setStartTimeUnixNano(i)
              .setEndTimeUnixNano(i + 1L));
    }
    return request(service, scope);
  }

  /** A request of one resource, the service {@code service}, with the spans of {@code scope}. */
  public static ExportTraceServiceRequest request(String service, ScopeSpans.Builder scope) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(
                            KeyValue.newBuilder()
                                .setKey("service.name")
                                .setValue(AnyValue.newBuilder().setStringValue(service))))
                .addScopeSpans(scope))
        .build();
  }

  /** The same, indexed. */
  public static OtlpIndex indexed(String service, int first, int count) {
    try {
      return new OtlpIndexer().index(Signal.TRACES, request(service, first, count).toByteArray());
    } catch (MalformedOtlpException e) {
      throw new AssertionError(e);
    }
  }

  /** The span numbers in a marshaled request, in order. */
  public static List<Integer> numbers(byte[] request) {
    try {
      List<Integer> numbers = new ArrayList<>();
      for (ResourceSpans resource :
          ExportTraceServiceRequest.parseFrom(request).getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            numbers.add(Integer.parseInt(span.getName()));
          }
        }
      }
      return numbers;
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }
}
