package dev.sluice.connector.spanmetrics;

import dev.sluice.pdata.build.ValueWriter;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.ArrayCursor;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.TextView;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The connector's own compact form of attribute values, in which series keys and kept resource
 * attributes are written: a type byte, then the value (strings and bytes with a varint length,
 * numbers in eight bytes, arrays and key-value lists element by element up to an end byte). Equal
 * values of equal type give equal bytes, so a key is compared and hashed as bytes. Written from the
 * views without allocating; read back (allocating) only when metrics are built.
 */
final class ValueCodec {
  /** The type bytes. */
  static final class Tag {
    /** A dimension the span, its resource and its default did not give: no attribute. */
    static final byte ABSENT = 0;

    static final byte STRING = 1;
    static final byte BOOL = 2;
    static final byte INT = 3;
    static final byte DOUBLE = 4;
    static final byte BYTES = 5;
    static final byte EMPTY = 6;
    static final byte ARRAY = 7;
    static final byte KVLIST = 8;

    /** Ends an array's elements or a key-value list's entries. */
    static final byte END = 9;

    private Tag() {}
  }

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  // Cursors for nested arrays and lists, one per depth, made when first needed.
  private final List<ArrayCursor> arrays = new ArrayList<>();
  private final List<AttributeCursor> lists = new ArrayList<>();

  /** Writes {@code value} (type and content) at the end of {@code out}. */
  void write(AnyValueView value, KeyBuffer out) {
    write(value, out, 0);
  }

  private void write(AnyValueView value, KeyBuffer out, int depth) {
    switch (value.type()) {
      case STRING -> writeString(value.stringValue(), out);
      case BOOL -> {
        out.put(Tag.BOOL);
        out.put(value.boolValue() ? (byte) 1 : (byte) 0);
      }
      case INT -> {
        out.put(Tag.INT);
        out.putLong(value.intValue());
      }
      case DOUBLE -> {
        out.put(Tag.DOUBLE);
        out.putLong(Double.doubleToRawLongBits(value.doubleValue()));
      }
      case BYTES -> {
        int length = value.bytesLength();
        out.put(Tag.BYTES);
        out.putLength(length);
        out.ensure(length);
        out.length += value.copyBytes(out.bytes, out.length);
      }
      case ARRAY -> {
        out.put(Tag.ARRAY);
        ArrayCursor elements = value.array(arrayCursor(depth));
        while (elements.next()) {
          write(elements.value(), out, depth + 1);
        }
        out.put(Tag.END);
      }
      case KVLIST -> {
        out.put(Tag.KVLIST);
        AttributeCursor entries = value.kvlist(listCursor(depth));
        while (entries.next()) {
          writeText(entries.key(), out);
          write(entries.value(), out, depth + 1);
        }
        out.put(Tag.END);
      }
      default -> out.put(Tag.EMPTY); // empty, or a profiles string-table index
    }
  }

  static void writeString(TextView text, KeyBuffer out) {
    out.put(Tag.STRING);
    writeText(text, out);
  }

  static void writeText(TextView text, KeyBuffer out) {
    int length = text.length();
    out.putLength(length);
    out.ensure(length);
    out.length += text.copyTo(out.bytes, out.length);
  }

  static void writeString(byte[] utf8, KeyBuffer out) {
    out.put(Tag.STRING);
    out.putLength(utf8.length);
    out.put(utf8, 0, utf8.length);
  }

  private ArrayCursor arrayCursor(int depth) {
    while (arrays.size() <= depth) {
      arrays.add(new ArrayCursor());
    }
    return arrays.get(depth);
  }

  private AttributeCursor listCursor(int depth) {
    while (lists.size() <= depth) {
      lists.add(new AttributeCursor());
    }
    return lists.get(depth);
  }

  /** Where the value at {@code p} ends. */
  static int skip(byte[] b, int p) {
    byte type = b[p++];
    return switch (type) {
      case Tag.STRING, Tag.BYTES -> {
        long prefix = readLength(b, p);
        yield (int) (prefix >>> 32) + (int) prefix;
      }
      case Tag.BOOL -> p + 1;
      case Tag.INT, Tag.DOUBLE -> p + Long.BYTES;
      case Tag.ARRAY -> {
        while (b[p] != Tag.END) {
          p = skip(b, p);
        }
        yield p + 1;
      }
      case Tag.KVLIST -> {
        while (b[p] != Tag.END) {
          long prefix = readLength(b, p);
          p = skip(b, (int) (prefix >>> 32) + (int) prefix);
        }
        yield p + 1;
      }
      default -> p;
    };
  }

  /** A varint length at {@code p}: where its bytes start (high half) and how many (low half). */
  static long readLength(byte[] b, int p) {
    int value = 0;
    int shift = 0;
    int q = p;
    while (true) {
      byte next = b[q++];
      value |= (next & 0x7F) << shift;
      if (next >= 0) {
        return ((long) q << 32) | (value & 0xFFFFFFFFL);
      }
      shift += 7;
    }
  }

  static String string(byte[] b, int p) {
    long prefix = readLength(b, p);
    return new String(b, (int) (prefix >>> 32), (int) prefix, StandardCharsets.UTF_8);
  }

  /**
   * Writes the value at {@code p} (not {@link Tag#ABSENT}) as {@code key}'s value into {@code
   * attributes}; returns where the value ends.
   */
  static int put(byte[] b, int p, CharSequence key, ValueWriter attributes) {
    byte type = b[p];
    int q = p + 1;
    switch (type) {
      case Tag.STRING -> attributes.put(key, string(b, q));
      case Tag.BOOL -> attributes.put(key, b[q] != 0);
      case Tag.INT -> attributes.put(key, (long) LONGS.get(b, q));
      case Tag.DOUBLE -> attributes.put(key, Double.longBitsToDouble((long) LONGS.get(b, q)));
      case Tag.BYTES -> attributes.put(key, bytes(b, q));
      case Tag.ARRAY -> {
        attributes.putArray(key);
        q = addElements(b, q, attributes);
        attributes.end();
        return q;
      }
      case Tag.KVLIST -> {
        attributes.putKvList(key);
        q = putEntries(b, q, attributes);
        attributes.end();
        return q;
      }
      default -> attributes.putEmpty(key);
    }
    return skip(b, p);
  }

  private static int addElements(byte[] b, int p, ValueWriter out) {
    int q = p;
    while (b[q] != Tag.END) {
      byte type = b[q];
      int v = q + 1;
      switch (type) {
        case Tag.STRING -> out.add(string(b, v));
        case Tag.BOOL -> out.add(b[v] != 0);
        case Tag.INT -> out.add((long) LONGS.get(b, v));
        case Tag.DOUBLE -> out.add(Double.longBitsToDouble((long) LONGS.get(b, v)));
        case Tag.BYTES -> out.add(bytes(b, v));
        case Tag.ARRAY -> {
          out.addArray();
          q = addElements(b, v, out);
          out.end();
          continue;
        }
        case Tag.KVLIST -> {
          out.addKvList();
          q = putEntries(b, v, out);
          out.end();
          continue;
        }
        default -> out.addEmpty();
      }
      q = skip(b, q);
    }
    return q + 1;
  }

  private static int putEntries(byte[] b, int p, ValueWriter out) {
    int q = p;
    while (b[q] != Tag.END) {
      String key = string(b, q);
      long prefix = readLength(b, q);
      q = put(b, (int) (prefix >>> 32) + (int) prefix, key, out);
    }
    return q + 1;
  }

  private static byte[] bytes(byte[] b, int p) {
    long prefix = readLength(b, p);
    int from = (int) (prefix >>> 32);
    return java.util.Arrays.copyOfRange(b, from, from + (int) prefix);
  }
}
