package dev.sluice.ottl;

import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.internal.OtlpFields.ArrayValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValueList;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.WireType;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.ArrayCursor;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.TextView;
import java.util.Arrays;

/**
 * Encodes an evaluated value as an OTLP {@code AnyValue} (and a key with it as a {@code KeyValue}),
 * for editors that write it into an item. Maps and lists are copied entry by entry from the cursors
 * they point at. Reuses its cursors and buffers; not thread-safe.
 */
final class AnyValueWriter {
  /** Values nest no deeper than validated requests do. */
  private static final int MAX_DEPTH = 128;

  private static final int INITIAL_TEXT_BYTES = 64;

  private AttributeCursor[] maps = new AttributeCursor[0];
  private ArrayCursor[] arrays = new ArrayCursor[0];
  private Value[] elements = new Value[0];
  private byte[] text = new byte[INITIAL_TEXT_BYTES];

  /** Writes {@code value} (not nil) as the payload of an {@code AnyValue}. */
  void write(Value value, ProtoWriter out) {
    write(value, out, 0);
  }

  /**
   * Writes field {@code field} holding a {@code KeyValue} of {@code key[keyOffset, +keyLength)} and
   * {@code value}.
   */
  void writeEntry(
      int field, byte[] key, int keyOffset, int keyLength, Value value, ProtoWriter out) {
    int entry = out.beginLengthDelimited(field);
    out.writeLengthDelimitedHeader(KeyValue.KEY, keyLength);
    out.writeBytes(key, keyOffset, keyLength);
    int any = out.beginLengthDelimited(KeyValue.VALUE);
    write(value, out, 0);
    out.endLengthDelimited(any);
    out.endLengthDelimited(entry);
  }

  /** As {@link #writeEntry}, with a value read from the item. */
  void writeEntry(
      int field, byte[] key, int keyOffset, int keyLength, AnyValueView value, ProtoWriter out) {
    int entry = out.beginLengthDelimited(field);
    out.writeLengthDelimitedHeader(KeyValue.KEY, keyLength);
    out.writeBytes(key, keyOffset, keyLength);
    int any = out.beginLengthDelimited(KeyValue.VALUE);
    writeView(value, out, 0);
    out.endLengthDelimited(any);
    out.endLengthDelimited(entry);
  }

  /** Copies {@code text} into this writer's buffer (valid until the next call). */
  byte[] copy(TextView source) {
    if (text.length < source.length()) {
      text = Arrays.copyOf(text, Math.max(source.length(), 2 * text.length));
    }
    source.copyTo(text, 0);
    return text;
  }

  private void write(Value value, ProtoWriter out, int depth) {
    switch (value.kind) {
      case STRING -> {
        out.writeLengthDelimitedHeader(AnyValue.STRING_VALUE, value.length);
        out.writeBytes(value.bytes, value.offset, value.length);
      }
      case BOOL -> {
        out.writeTag(AnyValue.BOOL_VALUE, WireType.VARINT);
        out.writeVarint32(value.boolValue ? 1 : 0);
      }
      case INT -> {
        out.writeTag(AnyValue.INT_VALUE, WireType.VARINT);
        out.writeVarint64(value.longValue);
      }
      case DOUBLE -> {
        out.writeTag(AnyValue.DOUBLE_VALUE, WireType.I64);
        out.writeFixed64(Double.doubleToRawLongBits(value.doubleValue));
      }
      case BYTES -> {
        out.writeLengthDelimitedHeader(AnyValue.BYTES_VALUE, value.length);
        out.writeBytes(value.bytes, value.offset, value.length);
      }
      case MAP -> writeMap(value.map, out, depth);
      case LIST -> {
        check(depth);
        Value element = element(depth);
        int list = out.beginLengthDelimited(AnyValue.ARRAY_VALUE);
        int size = value.list.size();
        for (int i = 0; i < size; i++) {
          value.list.get(i, element);
          int any = out.beginLengthDelimited(ArrayValue.VALUES);
          if (element.kind != Value.Kind.NIL) {
            write(element, out, depth + 1);
          }
          out.endLengthDelimited(any);
        }
        out.endLengthDelimited(list);
      }
      case NIL -> {}
    }
  }

  private void writeMap(AttributeCursor entries, ProtoWriter out, int depth) {
    check(depth);
    int map = out.beginLengthDelimited(AnyValue.KVLIST_VALUE);
    entries.reset();
    while (entries.next()) {
      int entry = out.beginLengthDelimited(KeyValueList.VALUES);
      TextView key = entries.key();
      out.writeLengthDelimitedHeader(KeyValue.KEY, key.length());
      out.writeBytes(copy(key), 0, key.length());
      int any = out.beginLengthDelimited(KeyValue.VALUE);
      writeView(entries.value(), out, depth + 1);
      out.endLengthDelimited(any);
      out.endLengthDelimited(entry);
    }
    out.endLengthDelimited(map);
  }

  private void writeView(AnyValueView value, ProtoWriter out, int depth) {
    switch (value.type()) {
      case STRING -> {
        TextView s = value.stringValue();
        out.writeLengthDelimitedHeader(AnyValue.STRING_VALUE, s.length());
        out.writeBytes(copy(s), 0, s.length());
      }
      case BOOL -> {
        out.writeTag(AnyValue.BOOL_VALUE, WireType.VARINT);
        out.writeVarint32(value.boolValue() ? 1 : 0);
      }
      case INT -> {
        out.writeTag(AnyValue.INT_VALUE, WireType.VARINT);
        out.writeVarint64(value.intValue());
      }
      case DOUBLE -> {
        out.writeTag(AnyValue.DOUBLE_VALUE, WireType.I64);
        out.writeFixed64(Double.doubleToRawLongBits(value.doubleValue()));
      }
      case BYTES -> {
        int size = value.bytesLength();
        if (text.length < size) {
          text = Arrays.copyOf(text, Math.max(size, 2 * text.length));
        }
        value.copyBytes(text, 0);
        out.writeLengthDelimitedHeader(AnyValue.BYTES_VALUE, size);
        out.writeBytes(text, 0, size);
      }
      case KVLIST -> {
        check(depth);
        writeMap(value.kvlist(map(depth)), out, depth);
      }
      case ARRAY -> {
        check(depth);
        ArrayCursor cursor = value.array(array(depth));
        int list = out.beginLengthDelimited(AnyValue.ARRAY_VALUE);
        while (cursor.next()) {
          int any = out.beginLengthDelimited(ArrayValue.VALUES);
          writeView(cursor.value(), out, depth + 1);
          out.endLengthDelimited(any);
        }
        out.endLengthDelimited(list);
      }
      default -> {}
    }
  }

  private static void check(int depth) {
    if (depth >= MAX_DEPTH) {
      throw new OttlEvaluationException("a value nested more than " + MAX_DEPTH + " deep");
    }
  }

  private AttributeCursor map(int depth) {
    if (maps.length <= depth) {
      maps = grow(maps, depth);
    }
    if (maps[depth] == null) {
      maps[depth] = new AttributeCursor();
    }
    return maps[depth];
  }

  private ArrayCursor array(int depth) {
    if (arrays.length <= depth) {
      arrays = grow(arrays, depth);
    }
    if (arrays[depth] == null) {
      arrays[depth] = new ArrayCursor();
    }
    return arrays[depth];
  }

  private Value element(int depth) {
    if (elements.length <= depth) {
      elements = grow(elements, depth);
    }
    if (elements[depth] == null) {
      elements[depth] = new Value();
    }
    return elements[depth];
  }

  private static <T> T[] grow(T[] array, int depth) {
    return Arrays.copyOf(array, Math.max(depth + 1, 2 * array.length));
  }
}
