package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.SpanFieldScan;
import dev.sluice.pdata.view.SpanView;
import dev.sluice.pdata.view.ValueType;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The one span walk ({@link SpanFieldScan}) reads what the span view and the attribute cursor read:
 * the trace ID, the trace_state, the name, and for each key asked for whether the span has it and
 * its first entry's value, on spans whose fields come in any order and any number (trace IDs empty,
 * zero or not, several trace_state and name fields, unknown fields, groups, which leave the span
 * undecided) and whose entries take every shape the wire allows (value first, key only, a second
 * key, lengths written in more bytes than they need). Where it finds a new trace_state goes, which
 * the editor's single-set path takes instead of walking the span again, is where the rewrite
 * engine's walk puts it.
 */
class SpanFieldScanPropertyTest {
  private static final List<String> KEYS =
      List.of("sampling.priority", "http.route", "k", "x".repeat(70), "sampling.priorit");

  private static final List<AnyValue> VALUES =
      List.of(
          AnyValue.newBuilder().setIntValue(3).build(),
          AnyValue.newBuilder().setDoubleValue(0.5).build(),
          AnyValue.newBuilder().setStringValue("/users/{id}").build(),
          AnyValue.newBuilder().setStringValue("").build(),
          AnyValue.newBuilder().setBoolValue(true).build(),
          AnyValue.newBuilder().setBytesValue(ByteString.copyFromUtf8("b")).build(),
          AnyValue.newBuilder()
              .setArrayValue(
                  ArrayValue.newBuilder().addValues(AnyValue.newBuilder().setIntValue(1)))
              .build(),
          AnyValue.getDefaultInstance());

  @Provide
  Arbitrary<List<List<ByteString>>> spans() {
    Arbitrary<ByteString> traceId =
        Arbitraries.of(0, 16).map(n -> field(1, ByteString.copyFrom(new byte[n])));
    Arbitrary<ByteString> randomTraceId =
        Arbitraries.bytes()
            .array(byte[].class)
            .ofSize(16)
            .map(id -> field(1, ByteString.copyFrom(id)));
    Arbitrary<ByteString> spanId =
        Arbitraries.just(
            Span.newBuilder()
                .setSpanId(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))
                .build()
                .toByteString());
    Arbitrary<ByteString> traceState =
        Arbitraries.of("", "a=b", "ot=th:8", "vendor=x,ot=rv:00000000000001")
            .map(t -> field(3, ByteString.copyFromUtf8(t)));
    Arbitrary<ByteString> name =
        Arbitraries.of("", "GET /users", "second").map(t -> field(5, ByteString.copyFromUtf8(t)));
    Arbitrary<ByteString> attribute =
        Combinators.combine(
                Arbitraries.of(KEYS), Arbitraries.of(VALUES), Arbitraries.integers().between(0, 4))
            .as(SpanFieldScanPropertyTest::attribute);
    Arbitrary<ByteString> plain =
        Arbitraries.of(
            Span.newBuilder().setKind(Span.SpanKind.SPAN_KIND_SERVER).build().toByteString(),
            Span.newBuilder()
                .setStartTimeUnixNano(1_700_000_000_000_000_000L)
                .build()
                .toByteString(),
            // Field 999, a varint: a tag of two bytes.
            ByteString.copyFrom(new byte[] {(byte) 0xB8, 0x3E, 0x01}));
    // Field 1000, a group holding field 1 (varint 7): the walk leaves such a span to the view.
    Arbitrary<ByteString> group =
        Arbitraries.just(
            ByteString.copyFrom(new byte[] {(byte) 0xC3, 0x3E, 0x08, 0x07, (byte) 0xC4, 0x3E}));
    Arbitrary<ByteString> fields =
        Arbitraries.frequencyOf(
            Tuple.of(2, traceId),
            Tuple.of(2, randomTraceId),
            Tuple.of(1, spanId),
            Tuple.of(2, traceState),
            Tuple.of(2, name),
            Tuple.of(8, attribute),
            Tuple.of(2, plain),
            Tuple.of(1, group));
    return fields.list().ofMaxSize(14).list().ofMinSize(1).ofMaxSize(6);
  }

  @Property(tries = 1000)
  void theScanReadsWhatTheViewAndTheCursorRead(
      @ForAll("spans") List<List<ByteString>> spans, @ForAll boolean name, @ForAll boolean trace)
      throws Exception {
    SpanFieldScan scan = new SpanFieldScan();
    if (name) {
      scan.name();
    }
    long[] readTraceId = new long[2];
    if (trace) {
      scan.traceFields(
          (high, low) -> {
            readTraceId[0] = high;
            readTraceId[1] = low;
          });
    }
    int[] slots = new int[KEYS.size()];
    for (int k = 0; k < slots.length; k++) {
      slots[k] = scan.key(KEYS.get(k).getBytes(StandardCharsets.UTF_8));
    }
    AttributeCursor cursor = new AttributeCursor();
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, request(spans)));
    batch.visit(
        item -> {
          SpanView span = item.span();
          readTraceId[0] = 0;
          readTraceId[1] = 0;
          if (!scan.scan(span)) {
            assertThat(hasGroup(spans.get(item.item()))).as("undecided without a group").isTrue();
            return;
          }
          if (trace) {
            assertThat(scan.traceIdHigh()).isEqualTo(span.traceIdHigh());
            assertThat(scan.traceIdLow()).isEqualTo(span.traceIdLow());
            assertThat(scan.traceState().asString()).isEqualTo(span.traceState().asString());
            assertThat(readTraceId).containsExactly(scan.traceIdHigh(), scan.traceIdLow());
            assertPlacesATraceStateAsTheEngineDoes(item, span, scan);
          }
          if (name) {
            assertThat(scan.kind(SpanFieldScan.NAME)).isEqualTo(SpanFieldScan.STRING);
            assertThat(scan.nameText().asString()).isEqualTo(span.name().asString());
          }
          for (int k = 0; k < slots.length; k++) {
            boolean found =
                span.attributes(cursor).find(KEYS.get(k).getBytes(StandardCharsets.UTF_8));
            assertThat(scan.found(slots[k])).as(KEYS.get(k)).isEqualTo(found);
            if (found) {
              AnyValueView expected = cursor.value();
              AnyValueView actual = scan.value(slots[k]);
              assertThat(actual.type()).isEqualTo(expected.type());
              if (expected.type() == ValueType.STRING) {
                assertThat(actual.stringValue().asString())
                    .isEqualTo(expected.stringValue().asString());
                assertThat(scan.kind(slots[k])).isEqualTo(SpanFieldScan.STRING);
                assertThat(
                        new String(
                            scan.bytes(),
                            scan.textFrom(),
                            scan.textTo() - scan.textFrom(),
                            StandardCharsets.UTF_8))
                    .isEqualTo(expected.stringValue().asString());
              } else if (expected.type() == ValueType.INT) {
                assertThat(actual.intValue()).isEqualTo(expected.intValue());
              }
            } else {
              assertThat(scan.kind(slots[k])).isEqualTo(SpanFieldScan.NIL);
            }
          }
        });
    batch.clear();
  }

  /**
   * Where the walk found a new trace_state goes (for the editor's single-set path) is where the
   * engine's own walk puts it: both paths write the same bytes, for a value new or the same.
   */
  private static void assertPlacesATraceStateAsTheEngineDoes(
      BatchItem item, SpanView span, SpanFieldScan scan) {
    byte[] message = item.array();
    int offset = item.offset();
    int length = item.length();
    boolean placed = item.traceStatePlaced(message, offset, length);
    assertThat(placed).isEqualTo(scan.traceStateFields() <= 1);
    if (!placed) {
      return;
    }
    for (String value : List.of("", "a=b", "ot=th:0")) {
      byte[] encoded =
          field(OtlpFields.Span.TRACE_STATE, ByteString.copyFromUtf8(value)).toByteArray();
      if (value.isEmpty()) {
        encoded = new byte[0];
      }
      MessageRewriter walked = new MessageRewriter();
      int walkedLength =
          walked.locateSet(
              message, offset, length, OtlpFields.Span.TRACE_STATE, encoded, 0, encoded.length);
      MessageRewriter hinted = new MessageRewriter();
      int hintedLength =
          hinted.placeSet(
              message,
              offset,
              length,
              item.traceStateAt(),
              item.traceStateFrom(),
              item.traceStateTo(),
              encoded,
              0,
              encoded.length);
      assertThat(hintedLength).as(value).isEqualTo(walkedLength);
      if (walkedLength >= 0) {
        byte[] a = new byte[walkedLength];
        byte[] b = new byte[walkedLength];
        walked.writeSet(message, offset, length, encoded, 0, encoded.length, a, 0);
        hinted.writeSet(message, offset, length, encoded, 0, encoded.length, b, 0);
        assertThat(b).as(value).isEqualTo(a);
      }
    }
  }

  private static boolean hasGroup(List<ByteString> fields) {
    return fields.stream().anyMatch(f -> f.byteAt(0) == (byte) 0xC3);
  }

  /** A length-delimited field. */
  private static ByteString field(int number, ByteString payload) {
    return UnknownFieldSet.newBuilder()
        .addField(number, UnknownFieldSet.Field.newBuilder().addLengthDelimited(payload).build())
        .build()
        .toByteString();
  }

  /** An attributes field of one entry in the shape {@code shape} picks. */
  private static ByteString attribute(String key, AnyValue value, int shape) {
    ByteString keyField = field(1, ByteString.copyFromUtf8(key));
    ByteString valueField = field(2, value.toByteString());
    ByteString entry;
    switch (shape) {
      case 1 -> entry = valueField.concat(keyField);
      case 2 -> entry = keyField;
      case 3 ->
          entry = field(1, ByteString.copyFromUtf8("decoy")).concat(keyField).concat(valueField);
      case 4 -> {
        // The key's length in two bytes, one more than it needs (when the key is short).
        ByteString k = ByteString.copyFromUtf8(key);
        entry =
            k.size() < 128
                ? ByteString.copyFrom(new byte[] {0x0A, (byte) (0x80 | k.size()), 0x00})
                    .concat(k)
                    .concat(valueField)
                : keyField.concat(valueField);
      }
      default -> entry = keyField.concat(valueField);
    }
    return field(9, entry);
  }

  private static byte[] request(List<List<ByteString>> spans) {
    UnknownFieldSet.Field.Builder spanList = UnknownFieldSet.Field.newBuilder();
    for (List<ByteString> fields : spans) {
      ByteString span = ByteString.EMPTY;
      for (ByteString f : fields) {
        span = span.concat(f);
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
