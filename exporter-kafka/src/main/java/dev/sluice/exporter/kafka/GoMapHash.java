package dev.sluice.exporter.kafka;

import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.ArrayCursor;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.ResourceView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The Collector's hash of an attribute map ({@code pdatautil.MapHash}), which its Kafka exporter
 * uses as the record key of a resource: the map written in a canonical form (keys sorted by their
 * bytes, each as {@code 0xf4} and the key, then the value with a one-byte type prefix, integers and
 * doubles as 8 little-endian bytes, maps and arrays bracketed and nested), then two XXH64 sums, of
 * that form and of it followed by {@code 0xf3}, each as 8 little-endian bytes. An empty map hashes
 * to 16 zero bytes. Read through the views, with no decoding.
 *
 * <p>One per thread; its buffers are reused.
 */
final class GoMapHash {
  private static final byte KEY_PREFIX = (byte) 0xf4;
  private static final byte EMPTY = (byte) 0xf5;
  private static final byte BYTES_PREFIX = (byte) 0xf6;
  private static final byte STRING_PREFIX = (byte) 0xf7;
  private static final byte TRUE = (byte) 0xf8;
  private static final byte FALSE = (byte) 0xf9;
  private static final byte INT_PREFIX = (byte) 0xfa;
  private static final byte DOUBLE_PREFIX = (byte) 0xfb;
  private static final byte MAP_PREFIX = (byte) 0xfc;
  private static final byte MAP_SUFFIX = (byte) 0xfd;
  private static final byte SLICE_PREFIX = (byte) 0xfe;
  private static final byte SLICE_SUFFIX = (byte) 0xff;
  private static final byte EXTRA = (byte) 0xf3;
  private static final int MAX_RETAINED_BYTES = 64 * 1024;

  private byte[] out = new byte[512];
  private int size;
  private long high;
  private long low;
  // Cursors per nesting depth, made as deep maps and arrays need them.
  private final List<AttributeCursor> mapCursors = new ArrayList<>();
  private final List<ArrayCursor> arrayCursors = new ArrayList<>();
  private final List<int[]> orders = new ArrayList<>();
  private byte[] keys = new byte[256];
  private int keysUsed;

  /** Hashes the resource's attributes; read the result with {@link #high()} and {@link #low()}. */
  void hash(ResourceView resource) {
    AttributeCursor attributes = resource.attributes(mapCursor(0));
    if (attributes.count() == 0) {
      high = 0;
      low = 0;
      return;
    }
    size = 0;
    keysUsed = 0;
    writeMap(attributes, 0);
    long first = XxHash64.hash(out, 0, size);
    put(EXTRA);
    long second = XxHash64.hash(out, 0, size);
    // The 16 bytes are the two sums little-endian; high and low hold them as read big-endian.
    high = Long.reverseBytes(first);
    low = Long.reverseBytes(second);
    if (out.length > MAX_RETAINED_BYTES) {
      out = new byte[512];
    }
  }

  /** The first 8 bytes of the hash, big-endian. */
  long high() {
    return high;
  }

  /** The last 8 bytes of the hash, big-endian. */
  long low() {
    return low;
  }

  /** The hash as the record key: 16 bytes. */
  static byte[] bytes(long high, long low) {
    byte[] key = new byte[16];
    for (int i = 0; i < Long.BYTES; i++) {
      key[i] = (byte) (high >>> (56 - 8 * i));
      key[Long.BYTES + i] = (byte) (low >>> (56 - 8 * i));
    }
    return key;
  }

  private void writeMap(AttributeCursor cursor, int depth) {
    int count = cursor.count();
    // The keys' bytes, one after another, and per entry its key's offset, length and position.
    int[] order = order(depth, count * 3);
    int keyBytes = 0;
    // Nested maps put their keys after this map's, which stay in use until its last entry.
    int keysStart = keysUsed;
    cursor.reset();
    int entry = 0;
    while (cursor.next()) {
      int length = cursor.key().length();
      keys = ensure(keys, keysStart + keyBytes + length);
      cursor.key().copyTo(keys, keysStart + keyBytes);
      order[entry * 3] = keysStart + keyBytes;
      order[entry * 3 + 1] = length;
      order[entry * 3 + 2] = entry;
      keyBytes += length;
      entry++;
    }
    keysUsed = keysStart + keyBytes;
    byte[] keyArray = keys;
    Integer[] sorted = new Integer[entry];
    for (int i = 0; i < entry; i++) {
      sorted[i] = i;
    }
    Arrays.sort(
        sorted,
        (a, b) ->
            Arrays.compareUnsigned(
                keyArray,
                order[a * 3],
                order[a * 3] + order[a * 3 + 1],
                keyArray,
                order[b * 3],
                order[b * 3] + order[b * 3 + 1]));
    for (int s = 0; s < entry; s++) {
      int e = sorted[s];
      put(KEY_PREFIX);
      putBytes(keyArray, order[e * 3], order[e * 3 + 1]);
      // Go looks each key up: a key given twice gives its first value both times.
      int first = e;
      for (int other = 0; other < e; other++) {
        if (Arrays.equals(
            keyArray,
            order[other * 3],
            order[other * 3] + order[other * 3 + 1],
            keyArray,
            order[e * 3],
            order[e * 3] + order[e * 3 + 1])) {
          first = other;
          break;
        }
      }
      cursor.reset();
      for (int skip = 0; skip <= first; skip++) {
        cursor.next();
      }
      writeValue(cursor.value(), depth);
    }
    keysUsed = keysStart;
  }

  private void writeValue(AnyValueView value, int depth) {
    switch (value.type()) {
      case STRING -> {
        put(STRING_PREFIX);
        int length = value.stringValue().length();
        ensureRoom(length);
        value.stringValue().copyTo(out, size);
        size += length;
      }
      case BOOL -> put(value.boolValue() ? TRUE : FALSE);
      case INT -> {
        put(INT_PREFIX);
        putLittleEndian(value.intValue());
      }
      case DOUBLE -> {
        put(DOUBLE_PREFIX);
        putLittleEndian(Double.doubleToRawLongBits(value.doubleValue()));
      }
      case KVLIST -> {
        put(MAP_PREFIX);
        writeMap(value.kvlist(mapCursor(depth + 1)), depth + 1);
        put(MAP_SUFFIX);
      }
      case ARRAY -> {
        put(SLICE_PREFIX);
        ArrayCursor elements = value.array(arrayCursor(depth + 1));
        while (elements.next()) {
          writeValue(elements.value(), depth + 1);
        }
        put(SLICE_SUFFIX);
      }
      case BYTES -> {
        put(BYTES_PREFIX);
        int length = value.bytesLength();
        ensureRoom(length);
        value.copyBytes(out, size);
        size += length;
      }
      // Go has no string-table values; an empty value, as a Go value of no type.
      case EMPTY, STRING_INDEX -> put(EMPTY);
    }
  }

  private AttributeCursor mapCursor(int depth) {
    while (mapCursors.size() <= depth) {
      mapCursors.add(new AttributeCursor());
    }
    return mapCursors.get(depth);
  }

  private ArrayCursor arrayCursor(int depth) {
    while (arrayCursors.size() <= depth) {
      arrayCursors.add(new ArrayCursor());
    }
    return arrayCursors.get(depth);
  }

  private int[] order(int depth, int length) {
    while (orders.size() <= depth) {
      orders.add(new int[48]);
    }
    if (orders.get(depth).length < length) {
      orders.set(depth, new int[Math.max(length, orders.get(depth).length * 2)]);
    }
    return orders.get(depth);
  }

  private void put(byte b) {
    ensureRoom(1);
    out[size++] = b;
  }

  private void putBytes(byte[] bytes, int offset, int length) {
    ensureRoom(length);
    System.arraycopy(bytes, offset, out, size, length);
    size += length;
  }

  private void putLittleEndian(long value) {
    ensureRoom(Long.BYTES);
    for (int i = 0; i < Long.BYTES; i++) {
      out[size++] = (byte) (value >>> (8 * i));
    }
  }

  private void ensureRoom(int more) {
    out = ensure(out, size + more);
  }

  private static byte[] ensure(byte[] array, int length) {
    return array.length >= length
        ? array
        : Arrays.copyOf(array, Math.max(length, array.length * 2));
  }
}
