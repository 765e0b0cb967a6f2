package dev.sluice.exporter.loadbalancing;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Trace requests whose spans interleave several traces, and what arrived where. */
final class Spans {
  private Spans() {}

  /** Trace ID number {@code n}: 16 bytes, {@code n} in the low ones, a fixed pattern above. */
  static byte[] traceId(int n) {
    return ByteBuffer.allocate(16)
        .putLong(0x5eed_0000_0000_0000L + n * 0x9e3779b97f4a7c15L)
        .putLong(n)
        .array();
  }

  static String hex(ByteString id) {
    return HexFormat.of().formatHex(id.toByteArray());
  }

  /**
   * One request: {@code spansPerTrace} spans of each trace from {@code firstTrace}, interleaved
   * (trace 0, trace 1, ..., trace 0, ...), each span ID unique over {@code requestNumber}.
   */
  static ExportTraceServiceRequest request(
      String service, int firstTrace, int traces, int spansPerTrace, int requestNumber) {
    ScopeSpans.Builder scope = ScopeSpans.newBuilder();
    for (int s = 0; s < spansPerTrace; s++) {
      for (int t = firstTrace; t < firstTrace + traces; t++) {
        long spanId = ((long) requestNumber << 32) | ((long) t << 8) | s;
        scope.addSpans(
            Span.newBuilder()
                .setTraceId(ByteString.copyFrom(traceId(t)))
                .setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(spanId).array()))
                .setName("span-" + s));
      }
    }
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

  static Batch batch(ExportTraceServiceRequest request) {
    try {
      return Batch.of(new OtlpIndexer().index(Signal.TRACES, request.toByteArray()));
    } catch (MalformedOtlpException e) {
      throw new AssertionError(e);
    }
  }

  static Batch metricsBatch(com.google.protobuf.Message request) {
    try {
      return Batch.of(new OtlpIndexer().index(Signal.METRICS, request.toByteArray()));
    } catch (MalformedOtlpException e) {
      throw new AssertionError(e);
    }
  }

  /** Spans per trace ID (hex) in {@code requests}. */
  static Map<String, Integer> countByTrace(List<ExportTraceServiceRequest> requests) {
    Map<String, Integer> counts = new TreeMap<>();
    for (ExportTraceServiceRequest request : requests) {
      for (ResourceSpans resource : request.getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            counts.merge(hex(span.getTraceId()), 1, Integer::sum);
          }
        }
      }
    }
    return counts;
  }
}
