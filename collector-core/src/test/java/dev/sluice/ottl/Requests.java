package dev.sluice.ottl;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;

/** Requests built with protobuf-java, indexed into batches, for evaluating conditions over. */
final class Requests {
  static final byte[] TRACE_ID = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  static final byte[] SPAN_ID = {1, 2, 3, 4, 5, 6, 7, 8};

  private Requests() {}

  static KeyValue kv(String key, AnyValue value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }

  static AnyValue string(String s) {
    return AnyValue.newBuilder().setStringValue(s).build();
  }

  static AnyValue integer(long v) {
    return AnyValue.newBuilder().setIntValue(v).build();
  }

  /** A server span with one attribute of every type. */
  static Span richSpan() {
    return Span.newBuilder()
        .setTraceId(ByteString.copyFrom(TRACE_ID))
        .setSpanId(ByteString.copyFrom(SPAN_ID))
        .setName("GET /users/42")
        .setKind(Span.SpanKind.SPAN_KIND_SERVER)
        .setStartTimeUnixNano(1_000)
        .setEndTimeUnixNano(2_000)
        .setStatus(
            Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR).setMessage("boom"))
        .addAttributes(kv("s", string("abc")))
        .addAttributes(kv("i", integer(42)))
        .addAttributes(kv("d", AnyValue.newBuilder().setDoubleValue(1.5).build()))
        .addAttributes(kv("b", AnyValue.newBuilder().setBoolValue(true).build()))
        .addAttributes(
            kv(
                "bytes",
                AnyValue.newBuilder()
                    .setBytesValue(ByteString.copyFrom(new byte[] {1, 2}))
                    .build()))
        .addAttributes(kv("u", string("caf\u00e9 \u2615\uD83D\uDE42")))
        .addAttributes(
            kv(
                "list",
                AnyValue.newBuilder()
                    .setArrayValue(
                        ArrayValue.newBuilder()
                            .addValues(string("x"))
                            .addValues(string("y"))
                            .addValues(integer(3)))
                    .build()))
        .addAttributes(
            kv(
                "map",
                AnyValue.newBuilder()
                    .setKvlistValue(KeyValueList.newBuilder().addValues(kv("k", string("v"))))
                    .build()))
        .addEvents(
            Span.Event.newBuilder()
                .setName("exception")
                .setTimeUnixNano(1_500)
                .addAttributes(kv("exception.type", string("java.io.IOException"))))
        .build();
  }

  static Batch traces(Span... spans) throws MalformedOtlpException {
    ScopeSpans.Builder scope =
        ScopeSpans.newBuilder()
            .setScope(InstrumentationScope.newBuilder().setName("tomcat").setVersion("1.0"));
    for (Span span : spans) {
      scope.addSpans(span);
    }
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .setResource(
                        Resource.newBuilder().addAttributes(kv("service.name", string("checkout"))))
                    .addScopeSpans(scope))
            .build();
    return Batch.of(new OtlpIndexer().index(Signal.TRACES, request.toByteArray()));
  }
}
