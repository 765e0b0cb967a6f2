package dev.sluice.processor.probabilisticsampler;

import static dev.sluice.processor.probabilisticsampler.SamplerHarness.config;
import static dev.sluice.processor.probabilisticsampler.SamplerHarness.hex;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.internal.OtlpFields;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bytes of a kept span: every field as it was, in its place, but the trace_state fields, of
 * which one new field is written where the first trace_state was or, before that, where the first
 * later field was. Checked on the raw bytes the processor writes, for spans whose fields come in
 * any order, with unknown fields, groups, several trace_state fields or none.
 */
class TraceStateRewriteTest {
  /** A trace ID the hash keeps at 25 % with seed 0 (as the Go table records). */
  private static final String KEPT_AT_25 = "ddaa4e85b0d6e28b8f8ea9d349428d8e";

  private static final String NEW_STATE = "ot=rv:e0a00b19c6c7d7;th:c";

  /** One field of a span, and its number. */
  private record Field(int number, ByteString bytes) {}

  private static Field traceId() {
    return new Field(
        OtlpFields.Span.TRACE_ID,
        Span.newBuilder().setTraceId(hex(KEPT_AT_25)).build().toByteString());
  }

  private static Field spanId() {
    return new Field(
        OtlpFields.Span.SPAN_ID,
        Span.newBuilder().setSpanId(hex("0102030405060708")).build().toByteString());
  }

  private static Field traceState(String value) {
    return new Field(
        OtlpFields.Span.TRACE_STATE, Span.newBuilder().setTraceState(value).build().toByteString());
  }

  private static Field name(String value) {
    return new Field(OtlpFields.Span.NAME, Span.newBuilder().setName(value).build().toByteString());
  }

  private static Field kind() {
    return new Field(
        OtlpFields.Span.KIND,
        Span.newBuilder().setKind(Span.SpanKind.SPAN_KIND_CLIENT).build().toByteString());
  }

  /** Field 999, a varint: a tag of two bytes. */
  private static Field unknownVarint() {
    return new Field(999, ByteString.copyFrom(new byte[] {(byte) 0xB8, 0x3E, 0x01}));
  }

  /** Field 1000, a group holding field 1 (varint 7). */
  private static Field unknownGroup() {
    return new Field(
        1000, ByteString.copyFrom(new byte[] {(byte) 0xC3, 0x3E, 0x08, 0x07, (byte) 0xC4, 0x3E}));
  }

  @Test
  void writesTheNewTraceStateInPlaceOfTheOldOrBeforeTheFirstLaterField() throws Exception {
    List<List<Field>> spans =
        List.of(
            List.of(traceId(), spanId(), name("plain"), kind()),
            List.of(name("out of order"), traceId(), traceState("a=b"), kind()),
            List.of(traceId(), traceState("a=b"), unknownVarint(), name("in place")),
            List.of(unknownVarint(), traceId(), name("unknown first")),
            List.of(traceId(), traceState("junk=1"), name("two states"), traceState("a=b")),
            List.of(traceId(), unknownGroup(), traceState("a=b"), name("a group")),
            List.of(spanId(), traceId()),
            List.of(traceId(), spanId(), traceState("a=b")));

    for (List<Field> fields : spans) {
      SamplerHarness sampler = new SamplerHarness(config("hash_seed", 25, 0), Signal.TRACES);
      byte[] out = sampler.tracesBytes(request(join(fields)).toByteArray());

      String state = lastTraceState(fields).isEmpty() ? NEW_STATE : NEW_STATE + ",a=b";
      assertThat(keptSpan(out)).as(describe(fields)).isEqualTo(expected(fields, state));
    }
  }

  private static String lastTraceState(List<Field> fields) throws Exception {
    String state = "";
    for (Field field : fields) {
      if (field.number() == OtlpFields.Span.TRACE_STATE) {
        state = Span.parseFrom(field.bytes()).getTraceState();
      }
    }
    return state;
  }

  /** The span less its trace_state fields, with the new one before the first later field. */
  private static ByteString expected(List<Field> fields, String state) {
    List<Field> kept = new ArrayList<>();
    int insertAt = -1;
    for (Field field : fields) {
      if (insertAt < 0 && field.number() >= OtlpFields.Span.TRACE_STATE) {
        insertAt = kept.size();
      }
      if (field.number() != OtlpFields.Span.TRACE_STATE) {
        kept.add(field);
      }
    }
    kept.add(insertAt < 0 ? kept.size() : insertAt, traceState(state));
    return join(kept);
  }

  private static ByteString join(List<Field> fields) {
    ByteString bytes = ByteString.EMPTY;
    for (Field field : fields) {
      bytes = bytes.concat(field.bytes());
    }
    return bytes;
  }

  private static String describe(List<Field> fields) {
    List<Integer> numbers = new ArrayList<>();
    fields.forEach(f -> numbers.add(f.number()));
    return "span of fields " + numbers;
  }

  /** The one span of a request of one resource and one scope, as a request. */
  private static UnknownFieldSet request(ByteString span) {
    UnknownFieldSet scope =
        UnknownFieldSet.newBuilder()
            .addField(
                OtlpFields.ScopeSpans.SPANS,
                UnknownFieldSet.Field.newBuilder().addLengthDelimited(span).build())
            .build();
    UnknownFieldSet resource =
        UnknownFieldSet.newBuilder()
            .addField(
                OtlpFields.ResourceSpans.SCOPE_SPANS,
                UnknownFieldSet.Field.newBuilder().addLengthDelimited(scope.toByteString()).build())
            .build();
    return UnknownFieldSet.newBuilder()
        .addField(
            OtlpFields.TracesRequest.RESOURCE_SPANS,
            UnknownFieldSet.Field.newBuilder().addLengthDelimited(resource.toByteString()).build())
        .build();
  }

  /** The raw bytes of the one span the request written holds. */
  private static ByteString keptSpan(byte[] request) throws Exception {
    assertThat(request).as("the span is kept").isNotNull();
    ByteString resource =
        UnknownFieldSet.parseFrom(request)
            .getField(OtlpFields.TracesRequest.RESOURCE_SPANS)
            .getLengthDelimitedList()
            .get(0);
    ByteString scope =
        UnknownFieldSet.parseFrom(resource)
            .getField(OtlpFields.ResourceSpans.SCOPE_SPANS)
            .getLengthDelimitedList()
            .get(0);
    List<ByteString> spans =
        UnknownFieldSet.parseFrom(scope)
            .getField(OtlpFields.ScopeSpans.SPANS)
            .getLengthDelimitedList();
    assertThat(spans).hasSize(1);
    return spans.get(0);
  }
}
