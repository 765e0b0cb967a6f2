package dev.sluice.processor.probabilisticsampler;

import static dev.sluice.processor.probabilisticsampler.SamplerHarness.config;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.internal.OtlpFields;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.FloatRange;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link SpanPass} with its fast paths (one walk of the span's fields, attribute runs walked at
 * once with a one-byte key length check, the trace ID hashed during the walk, no tracestate parsed
 * in {@code hash_seed} mode, the pre-built {@link HashMark}) writes the same bytes and counts the
 * same decisions as without them (the span view, the attribute cursor, the tracestate parser and
 * writer, the rewrite walk), on random spans whose fields come in any order: with and without trace
 * IDs, tracestates, empty trace_state fields, {@code sampling.priority} attributes of every type,
 * unknown fields.
 */
class SpanFastPathTest {
  private static final List<String> TRACE_STATES =
      List.of(
          "",
          "a=b",
          "ot=th:8",
          "ot=rv:e0a00b19c6c7d7;th:c",
          "ot=rv:00000000000001",
          "vendor=x,ot=th:0",
          "not a tracestate");

  private static final List<AnyValue> PRIORITIES =
      List.of(
          AnyValue.newBuilder().setIntValue(0).build(),
          AnyValue.newBuilder().setIntValue(3).build(),
          AnyValue.newBuilder().setIntValue(-1).build(),
          AnyValue.newBuilder().setDoubleValue(0.5).build(),
          AnyValue.newBuilder().setStringValue("0").build(),
          AnyValue.newBuilder().setStringValue("1e3").build(),
          AnyValue.newBuilder().setBoolValue(true).build());

  /** Keys near {@code sampling.priority} in length and spelling, and others. */
  private static final List<String> KEYS =
      List.of(
          "http.route", "sampling.priorit", "sampling.priorityx", "sampling_priority", "url.path");

  @Provide
  Arbitrary<ByteString> fields() {
    // A trace ID of 16 bytes, all zero, or empty (written: protobuf-java leaves an empty one out).
    Arbitrary<ByteString> traceId =
        Arbitraries.frequencyOf(
            Tuple.of(8, Arbitraries.bytes().array(byte[].class).ofSize(16).map(this::traceIdField)),
            Tuple.of(1, Arbitraries.just(traceIdField(new byte[16]))),
            Tuple.of(1, Arbitraries.just(ByteString.copyFrom(new byte[] {0x0A, 0x00}))));
    Arbitrary<ByteString> traceState =
        Arbitraries.of(TRACE_STATES).map(SpanFastPathTest::traceStateField);
    Arbitrary<ByteString> priority =
        Arbitraries.of(PRIORITIES)
            .map(value -> attribute(KeyValue.newBuilder().setKey("sampling.priority"), value));
    Arbitrary<ByteString> other =
        Combinators.combine(
                Arbitraries.of(KEYS),
                Arbitraries.strings().withCharRange('!', '~').ofMaxLength(140))
            .as(
                (key, value) ->
                    attribute(
                        KeyValue.newBuilder().setKey(key),
                        AnyValue.newBuilder().setStringValue(value).build()));
    Arbitrary<ByteString> plain =
        Arbitraries.of(
            single(Span.newBuilder().setSpanId(SamplerHarness.hex("0102030405060708"))),
            single(Span.newBuilder().setName("GET /api/v1/users/{id}")),
            single(Span.newBuilder().setKind(Span.SpanKind.SPAN_KIND_SERVER)),
            single(Span.newBuilder().setStartTimeUnixNano(1_700_000_000_000_000_000L)),
            single(Span.newBuilder().setStatus(Status.newBuilder().setMessage("late"))),
            // Field 999, a varint: a tag of two bytes.
            ByteString.copyFrom(new byte[] {(byte) 0xB8, 0x3E, 0x01}));
    return Arbitraries.frequencyOf(
        Tuple.of(3, traceId),
        Tuple.of(1, traceState),
        Tuple.of(1, priority),
        Tuple.of(4, other),
        Tuple.of(6, plain));
  }

  @Provide
  Arbitrary<List<List<ByteString>>> spans() {
    return fields().list().ofMinSize(0).ofMaxSize(12).list().ofMinSize(1).ofMaxSize(16);
  }

  @Provide
  Arbitrary<String> modes() {
    return Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.just("hash_seed")),
        Tuple.of(1, Arbitraries.just("proportional")),
        Tuple.of(1, Arbitraries.just("equalizing")));
  }

  @Property(tries = 1000)
  void fastPathsWriteAndCountWhatTheGeneralPathDoes(
      @ForAll("spans") List<List<ByteString>> spans,
      @ForAll("modes") String mode,
      @ForAll @FloatRange(min = 0.5f, max = 100) float percent,
      @ForAll @IntRange(min = 0, max = 3) int seed)
      throws Exception {
    byte[] request = request(spans);
    Sampler sampler = new Sampler(config(mode, percent, seed));

    Outcome fast = run(new SpanPass(sampler, true), request);
    Outcome general = run(new SpanPass(sampler, false), request);

    assertThat(fast.bytes()).isEqualTo(general.bytes());
    assertThat(fast.counts()).isEqualTo(general.counts());
  }

  @Example
  void shortPathTakesMostSpansOfARealisticRequestAndKeepsAQuarter() throws Exception {
    byte[] request = SamplerHarness.spansRequest(1000);
    Sampler sampler = new Sampler(config("hash_seed", 25, 0));

    Outcome fast = run(new SpanPass(sampler, true), request);
    Outcome general = run(new SpanPass(sampler, false), request);

    assertThat(fast.bytes()).isEqualTo(general.bytes());
    assertThat(fast.counts()).isEqualTo(general.counts());
    long kept = fast.counts()[SamplerCounters.slot(Policy.TRACE_ID_HASH, true)];
    long dropped = fast.counts()[SamplerCounters.slot(Policy.TRACE_ID_HASH, false)];
    assertThat(kept + dropped).isEqualTo(1000);
    assertThat(kept).isBetween(200L, 300L);
  }

  /**
   * A key length written in two bytes ({@code 0x91 0x00}, 17) is valid protobuf; the one-byte check
   * must not take such a key for another one, or a priority of 0 would go unseen.
   */
  @Example
  void seesAPriorityKeyWhoseLengthTakesMoreBytesThanItNeeds() throws Exception {
    // A trace ID the hash keeps at 25 % with seed 0 (as the Go table records).
    ByteString traceId =
        single(
            Span.newBuilder().setTraceId(SamplerHarness.hex("ddaa4e85b0d6e28b8f8ea9d349428d8e")));
    ByteString key = ByteString.copyFromUtf8("sampling.priority");
    ByteString value = AnyValue.newBuilder().setIntValue(0).build().toByteString();
    ByteString keyValue =
        ByteString.copyFrom(new byte[] {0x0A, (byte) 0x91, 0x00})
            .concat(key)
            .concat(ByteString.copyFrom(new byte[] {0x12, (byte) value.size()}))
            .concat(value);
    ByteString attribute =
        ByteString.copyFrom(new byte[] {0x4A, (byte) keyValue.size()}).concat(keyValue);
    Sampler sampler = new Sampler(config("hash_seed", 25, 0));

    byte[] withPriority = request(List.of(List.of(traceId, attribute)));
    byte[] without = request(List.of(List.of(traceId)));

    assertThat(run(new SpanPass(sampler, true), without).bytes()).isNotEmpty();
    Outcome fast = run(new SpanPass(sampler, true), withPriority);
    assertThat(fast.bytes()).as("dropped by its priority of 0").isEmpty();
    assertThat(fast.counts()[SamplerCounters.slot(Policy.SAMPLING_PRIORITY, false)]).isEqualTo(1);
  }

  private record Outcome(byte[] bytes, long[] counts) {}

  private static Outcome run(SpanPass pass, byte[] request) throws MalformedOtlpException {
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, request));
    batch.visit(pass);
    byte[] out = OtlpMarshaler.toByteArray(batch);
    batch.clear();
    return new Outcome(out, pass.counts.clone());
  }

  private ByteString traceIdField(byte[] id) {
    return single(Span.newBuilder().setTraceId(ByteString.copyFrom(id)));
  }

  private static ByteString single(Span.Builder span) {
    return span.build().toByteString();
  }

  /** A trace_state field, written even when empty (protobuf-java would leave an empty one out). */
  private static ByteString traceStateField(String value) {
    ByteString text = ByteString.copyFromUtf8(value);
    return ByteString.copyFrom(new byte[] {0x1A, (byte) text.size()}).concat(text);
  }

  private static ByteString attribute(KeyValue.Builder key, AnyValue value) {
    return single(Span.newBuilder().addAttributes(key.setValue(value)));
  }

  /** One resource, one scope, the spans of the given fields in the given order. */
  private static byte[] request(List<List<ByteString>> spans) {
    UnknownFieldSet.Field.Builder spanList = UnknownFieldSet.Field.newBuilder();
    for (List<ByteString> fields : spans) {
      ByteString span = ByteString.EMPTY;
      for (ByteString field : fields) {
        span = span.concat(field);
      }
      spanList.addLengthDelimited(span);
    }
    UnknownFieldSet scope =
        UnknownFieldSet.newBuilder()
            .addField(OtlpFields.ScopeSpans.SPANS, spanList.build())
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
        .build()
        .toByteArray();
  }
}
