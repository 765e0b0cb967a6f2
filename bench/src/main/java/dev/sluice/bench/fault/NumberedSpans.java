package dev.sluice.bench.fault;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.util.function.IntConsumer;

/**
 * Trace requests whose spans carry unique numbers (the span's name, in decimal), so that the fault
 * run can tell which spans the collector answered for and which ones arrived. Each span is about
 * 150 bytes on the wire, with an HTTP server span's usual attributes.
 */
final class NumberedSpans {
  private static final long EPOCH_NANOS = 1_700_000_000_000_000_000L;

  private NumberedSpans() {}

  /**
   * An encoded {@code ExportTraceServiceRequest} with spans {@code first} to {@code first+count-1}.
   */
  static byte[] request(int first, int count) {
    ScopeSpans.Builder scope =
        ScopeSpans.newBuilder()
            .setScope(InstrumentationScope.newBuilder().setName("fault-run").setVersion("1"));
    for (int number = first; number < first + count; number++) {
      long start = EPOCH_NANOS + number * 1_000_000L;
      scope.addSpans(
          Span.newBuilder()
              .setTraceId(
                  ByteString.copyFrom(
                      ByteBuffer.allocate(16).putLong(0x0fa0_17L).putLong(number).array()))
              .setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(number).array()))
              .setName(Integer.toString(number))
              .setKind(Span.SpanKind.SPAN_KIND_SERVER)
              .setStartTimeUnixNano(start)
              .setEndTimeUnixNano(start + 250_000 + number % 1000)
              .addAttributes(string("http.request.method", "GET"))
              .addAttributes(string("http.route", "/fault/" + (number % 17)))
              .addAttributes(string("url.path", "/fault/" + (number % 17) + "/item/" + number))
              .addAttributes(
                  KeyValue.newBuilder()
                      .setKey("http.response.status_code")
                      .setValue(AnyValue.newBuilder().setIntValue(200))));
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(Resource.newBuilder().addAttributes(string("service.name", "fault")))
                .addScopeSpans(scope))
        .build()
        .toByteArray();
  }

  /**
   * Hands each span number of an encoded request to {@code each}; returns the spans whose name is
   * not a number (0 for every request this class made), or -1 when the request does not parse.
   */
  static int numbers(byte[] request, IntConsumer each) {
    ExportTraceServiceRequest parsed;
    try {
      parsed = ExportTraceServiceRequest.parseFrom(request);
    } catch (InvalidProtocolBufferException e) {
      return -1;
    }
    int unnumbered = 0;
    for (ResourceSpans resource : parsed.getResourceSpansList()) {
      for (ScopeSpans scope : resource.getScopeSpansList()) {
        for (Span span : scope.getSpansList()) {
          try {
            each.accept(Integer.parseInt(span.getName()));
          } catch (NumberFormatException e) {
            unnumbered++;
          }
        }
      }
    }
    return unnumbered;
  }

  private static KeyValue string(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }
}
