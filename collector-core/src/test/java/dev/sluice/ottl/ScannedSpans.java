package dev.sluice.ottl;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.internal.OtlpFields;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Spans written byte by byte for the keyed comparisons' tests: attribute entries in the shapes SDKs
 * write and in those only the wire allows (value before key, a second key field, an unknown field,
 * no value), values of every type (and none), and a name that may be absent or written twice.
 */
final class ScannedSpans {
  /** How an entry is laid out on the wire. */
  enum Shape {
    KEY_THEN_VALUE,
    VALUE_THEN_KEY,
    DECOY_KEY_FIRST,
    UNKNOWN_FIELD_AFTER,
    KEY_ONLY
  }

  /** A value with no member set: {@code AnyValue{}}. */
  static final Object EMPTY = "<empty>";

  /** A {@code kvlist_value}. */
  static final Object MAP = "<map>";

  /** An {@code array_value}. */
  static final Object LIST = "<list>";

  /** An {@code int_value} followed on the wire by a {@code string_value} "v" (the last wins). */
  static final Object INT_THEN_STRING = "<int, then string>";

  record Entry(Shape shape, String key, Object value) {}

  /** A span: its name (null for none), whether the name is written again after the attributes. */
  record SpanCase(String name, boolean nameTwice, List<Entry> attributes) {}

  /** A field number no KeyValue has. */
  private static final int UNKNOWN = 7;

  private static final int UNKNOWN_VALUE = 99;
  private static final String SECOND_NAME = "second";

  private ScannedSpans() {}

  /** One request holding {@code spans} in order, indexed into a batch. */
  static Batch batch(List<SpanCase> spans) throws MalformedOtlpException {
    ByteArrayOutputStream scope = new ByteArrayOutputStream();
    write(
        scope,
        out -> {
          for (SpanCase span : spans) {
            out.writeByteArray(OtlpFields.ScopeSpans.SPANS, span(span));
          }
        });
    byte[] scopeSpans = scope.toByteArray();
    ByteArrayOutputStream resource = new ByteArrayOutputStream();
    write(resource, out -> out.writeByteArray(OtlpFields.ResourceSpans.SCOPE_SPANS, scopeSpans));
    byte[] resourceSpans = resource.toByteArray();
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    write(
        request, out -> out.writeByteArray(OtlpFields.TracesRequest.RESOURCE_SPANS, resourceSpans));
    return Batch.of(new OtlpIndexer().index(Signal.TRACES, request.toByteArray()));
  }

  private static byte[] span(SpanCase span) {
    Span.Builder builder =
        Span.newBuilder()
            .setTraceId(ByteString.copyFrom(Requests.TRACE_ID))
            .setSpanId(ByteString.copyFrom(Requests.SPAN_ID))
            .setKind(Span.SpanKind.SPAN_KIND_SERVER)
            .setStartTimeUnixNano(1_000)
            .setEndTimeUnixNano(2_000)
            .setFlags(1);
    if (span.name() != null) {
      builder.setName(span.name());
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    write(
        bytes,
        out -> {
          out.writeRawBytes(builder.build().toByteArray());
          for (Entry entry : span.attributes()) {
            out.writeByteArray(OtlpFields.Span.ATTRIBUTES, entry(entry));
          }
          if (span.nameTwice()) {
            out.writeString(OtlpFields.Span.NAME, SECOND_NAME);
          }
        });
    return bytes.toByteArray();
  }

  private static byte[] entry(Entry entry) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    byte[] value = entry.shape() == Shape.KEY_ONLY ? null : value(entry.value());
    write(
        bytes,
        out -> {
          switch (entry.shape()) {
            case KEY_THEN_VALUE -> {
              out.writeString(OtlpFields.KeyValue.KEY, entry.key());
              out.writeByteArray(OtlpFields.KeyValue.VALUE, value);
            }
            case VALUE_THEN_KEY -> {
              out.writeByteArray(OtlpFields.KeyValue.VALUE, value);
              out.writeString(OtlpFields.KeyValue.KEY, entry.key());
            }
            case DECOY_KEY_FIRST -> {
              out.writeString(OtlpFields.KeyValue.KEY, "decoy");
              out.writeString(OtlpFields.KeyValue.KEY, entry.key());
              out.writeByteArray(OtlpFields.KeyValue.VALUE, value);
            }
            case UNKNOWN_FIELD_AFTER -> {
              out.writeString(OtlpFields.KeyValue.KEY, entry.key());
              out.writeByteArray(OtlpFields.KeyValue.VALUE, value);
              out.writeUInt64(UNKNOWN, UNKNOWN_VALUE);
            }
            case KEY_ONLY -> out.writeString(OtlpFields.KeyValue.KEY, entry.key());
          }
        });
    return bytes.toByteArray();
  }

  private static byte[] value(Object value) {
    if (value == INT_THEN_STRING) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      write(
          bytes,
          out -> {
            out.writeInt64(OtlpFields.AnyValue.INT_VALUE, 7);
            out.writeString(OtlpFields.AnyValue.STRING_VALUE, "v");
          });
      return bytes.toByteArray();
    }
    AnyValue.Builder any = AnyValue.newBuilder();
    if (value == EMPTY) {
      return any.build().toByteArray();
    } else if (value == MAP) {
      any.setKvlistValue(
          KeyValueList.newBuilder()
              .addValues(KeyValue.newBuilder().setKey("k").setValue(Requests.string("v"))));
    } else if (value == LIST) {
      any.setArrayValue(ArrayValue.newBuilder().addValues(Requests.string("v")));
    } else if (value instanceof String s) {
      any.setStringValue(s);
    } else if (value instanceof Long l) {
      any.setIntValue(l);
    } else if (value instanceof Boolean b) {
      any.setBoolValue(b);
    } else if (value instanceof Double d) {
      any.setDoubleValue(d);
    } else if (value instanceof byte[] b) {
      any.setBytesValue(ByteString.copyFrom(b));
    } else {
      throw new IllegalArgumentException("no such value: " + value);
    }
    return any.build().toByteArray();
  }

  private interface Writes {
    void to(CodedOutputStream out) throws IOException;
  }

  private static void write(ByteArrayOutputStream bytes, Writes writes) {
    try {
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      writes.to(out);
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
