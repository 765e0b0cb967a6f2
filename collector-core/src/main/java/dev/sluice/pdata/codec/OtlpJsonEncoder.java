package dev.sluice.pdata.codec;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.internal.FieldKind;
import dev.sluice.pdata.internal.FieldSchema;
import dev.sluice.pdata.internal.Hex;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.MessageSchema;
import dev.sluice.pdata.internal.OtlpSchema;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.WireReader;
import dev.sluice.pdata.internal.WireType;
import dev.sluice.pdata.view.LogRecordView;
import dev.sluice.pdata.view.MetricView;
import dev.sluice.pdata.view.SpanView;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * Writes OTLP protobuf bytes as OTLP/JSON in one streaming pass over the wire (jackson-core, no
 * object model): lowerCamelCase keys, trace and span IDs in hex, other bytes in base64, enums as
 * integers, 64-bit integers as decimal strings, NaN and infinities as strings. Unknown fields are
 * left out, as proto3 JSON does.
 *
 * <p>The input must be valid (indexed or marshaled by Sluice). A repeated field whose elements are
 * not adjacent on the wire comes out as one array; a singular field sent more than once comes out
 * once, with its last value.
 *
 * <p>Stateless apart from the reused reader: one encoder per thread.
 */
public final class OtlpJsonEncoder {
  private static final JsonFactory FACTORY = new JsonFactory();

  private final WireReader in = new WireReader();
  private final char[] hex = new char[32];
  private final ProtoWriter item = new ProtoWriter(1024);

  static {
    for (MessageSchema schema : OtlpSchema.all()) {
      if (schema.maxFieldNumber() >= Long.SIZE) {
        throw new AssertionError(schema + " has field numbers past the 64-bit masks used here");
      }
    }
  }

  /** The request as a JSON document in UTF-8. Allocates: for the debug exporter and tests. */
  public byte[] encode(Signal signal, byte[] bytes, int offset, int length) {
    ByteArrayOutputStream json = new ByteArrayOutputStream(Math.max(64, length * 2));
    encode(signal, bytes, offset, length, json, false);
    return json.toByteArray();
  }

  /** Writes the request as JSON to {@code out}; {@code pretty} indents it for people to read. */
  public void encode(
      Signal signal, byte[] bytes, int offset, int length, OutputStream out, boolean pretty) {
    try (JsonGenerator json = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
      if (pretty) {
        json.useDefaultPrettyPrinter();
      }
      write(signal.request(), bytes, offset, length, json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes the span, with its edits, as a JSON object: for the debug exporter. */
  public void write(SpanView span, JsonGenerator json) throws IOException {
    item.reset();
    span.writeTo(item);
    write(Signal.TRACES.item(), item.array(), 0, item.size(), json);
  }

  /** Writes the log record, with its edits, as a JSON object: for the debug exporter. */
  public void write(LogRecordView logRecord, JsonGenerator json) throws IOException {
    item.reset();
    logRecord.writeTo(item);
    write(Signal.LOGS.item(), item.array(), 0, item.size(), json);
  }

  /** Writes the metric, with its edits, as a JSON object: for the debug exporter. */
  public void write(MetricView metric, JsonGenerator json) throws IOException {
    item.reset();
    metric.writeTo(item);
    write(Signal.METRICS.item(), item.array(), 0, item.size(), json);
  }

  /** Writes one message of the given schema as a JSON object. */
  @Internal
  public void write(MessageSchema schema, byte[] bytes, int offset, int length, JsonGenerator json)
      throws IOException {
    in.wrap(bytes, offset, length);
    try {
      writeMessage(schema, offset + length, json);
    } catch (MalformedOtlpException e) {
      throw new IllegalArgumentException("not a valid " + schema.name() + ": " + e.getMessage(), e);
    }
  }

  private void writeMessage(MessageSchema schema, int end, JsonGenerator json)
      throws IOException, MalformedOtlpException {
    int start = in.position();
    long seen = 0;
    long repeatedOnWire = 0;
    while (in.position() < end) {
      int tag = in.readTag();
      int number = tag >>> 3;
      if (schema.field(number) != null) {
        long bit = 1L << number;
        repeatedOnWire |= seen & bit;
        seen |= bit;
      }
      in.skipValue(tag, Integer.MAX_VALUE);
    }
    json.writeStartObject();
    long written = 0;
    in.position(start);
    while (in.position() < end) {
      int fieldStart = in.position();
      int tag = in.readTag();
      int number = tag >>> 3;
      FieldSchema field = schema.field(number);
      long bit = field == null ? 0 : 1L << number;
      if (field == null || (written & bit) != 0) {
        in.skipValue(tag, Integer.MAX_VALUE);
        continue;
      }
      written |= bit;
      json.writeFieldName(field.jsonName());
      boolean several = (repeatedOnWire & bit) != 0;
      if (field.isRepeated()) {
        json.writeStartArray();
        if (several) {
          in.position(fieldStart);
          int resume = -1;
          while (in.position() < end) {
            int occurrence = in.readTag();
            if ((occurrence >>> 3) == number) {
              writeValues(field, occurrence, json);
            } else {
              in.skipValue(occurrence, Integer.MAX_VALUE);
            }
            if (resume < 0) {
              resume = in.position();
            }
          }
          in.position(resume);
        } else {
          writeValues(field, tag, json);
        }
        json.writeEndArray();
      } else if (several) {
        int last = lastOccurrence(number, fieldStart, end);
        int resume = skipFrom(fieldStart, tag);
        in.position(last);
        writeValues(field, in.readTag(), json);
        in.position(resume);
      } else {
        writeValues(field, tag, json);
      }
    }
    json.writeEndObject();
  }

  /** Skips the field whose tag starts at {@code fieldStart}; returns the position after it. */
  private int skipFrom(int fieldStart, int tag) throws MalformedOtlpException {
    in.position(fieldStart);
    in.readTag();
    in.skipValue(tag, Integer.MAX_VALUE);
    return in.position();
  }

  private int lastOccurrence(int number, int from, int end) throws MalformedOtlpException {
    int last = from;
    in.position(from);
    while (in.position() < end) {
      int start = in.position();
      int tag = in.readTag();
      if ((tag >>> 3) == number) {
        last = start;
      }
      in.skipValue(tag, Integer.MAX_VALUE);
    }
    return last;
  }

  /** Writes the value(s) of one occurrence of a field: several for a packed run. */
  private void writeValues(FieldSchema field, int tag, JsonGenerator json)
      throws IOException, MalformedOtlpException {
    FieldKind kind = field.kind();
    if ((tag & 7) == WireType.LEN && kind.isPackable()) {
      int length = in.readLength();
      int end = in.position() + length;
      while (in.position() < end) {
        writeScalar(kind, json);
      }
      return;
    }
    switch (kind) {
      case MESSAGE:
        {
          int length = in.readLength();
          int end = in.position() + length;
          int outerLimit = in.limit();
          in.limit(end);
          writeMessage(field.message(), end, json);
          in.limit(outerLimit);
          return;
        }
      case STRING:
        {
          int length = in.readLength();
          json.writeUTF8String(in.buffer(), in.position(), length);
          in.position(in.position() + length);
          return;
        }
      case BYTES:
        {
          int length = in.readLength();
          if (field.idBytes() > 0 && length <= hex.length / 2) {
            Hex.encode(in.buffer(), in.position(), length, hex);
            json.writeString(hex, 0, 2 * length);
          } else {
            json.writeBinary(in.buffer(), in.position(), length);
          }
          in.position(in.position() + length);
          return;
        }
      default:
        writeScalar(kind, json);
    }
  }

  private void writeScalar(FieldKind kind, JsonGenerator json)
      throws IOException, MalformedOtlpException {
    switch (kind) {
      case BOOL:
        json.writeBoolean(in.readVarint64() != 0);
        return;
      case INT32:
      case ENUM:
        json.writeNumber((int) in.readVarint64());
        return;
      case UINT32:
        json.writeNumber(in.readVarint64() & 0xFFFFFFFFL);
        return;
      case SINT32:
        {
          int raw = (int) in.readVarint64();
          json.writeNumber((raw >>> 1) ^ -(raw & 1));
          return;
        }
      case FIXED32:
        json.writeNumber(in.readFixed32() & 0xFFFFFFFFL);
        return;
      case INT64:
      case SFIXED64:
        json.writeString(
            Long.toString(kind == FieldKind.INT64 ? in.readVarint64() : in.readFixed64()));
        return;
      case UINT64:
        json.writeString(Long.toUnsignedString(in.readVarint64()));
        return;
      case FIXED64:
        json.writeString(Long.toUnsignedString(in.readFixed64()));
        return;
      case DOUBLE:
        {
          double value = Double.longBitsToDouble(in.readFixed64());
          if (Double.isNaN(value)) {
            json.writeString("NaN");
          } else if (Double.isInfinite(value)) {
            json.writeString(value > 0 ? "Infinity" : "-Infinity");
          } else {
            json.writeNumber(value);
          }
          return;
        }
      default:
        throw new IllegalStateException("not a scalar: " + kind);
    }
  }
}
