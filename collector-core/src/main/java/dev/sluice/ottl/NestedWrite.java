package dev.sluice.ottl;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.internal.MessageRewriter;
import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.internal.OtlpFields.ArrayValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValueList;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.WireReader;
import dev.sluice.pdata.internal.WireType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Writes a value at depth inside an {@code AnyValue}, for targets with keys after the first ({@code
 * attributes["a"]["b"][0]}, {@code body["k"]}), as the Collector sets them: a missing map key is
 * added, an absent or empty value becomes a map (for a string key) or a list padded with empty
 * values up to the index (for an int key); indexing a list past its end, a map with an int, a list
 * with a string, or a value that is neither (a string, an int) fails for the item. Every entry and
 * element off the path is copied as bytes; an {@code AnyValue} on the path keeps only its member.
 */
final class NestedWrite {
  /** Items were validated at the edge; groups in unknown fields nest no deeper. */
  private static final int MAX_GROUP_DEPTH = 100;

  /**
   * The most empty values a list made for an index is padded with ({@code attributes["a"][5]} on a
   * missing key makes five): an index from the statement could otherwise make any item huge.
   */
  static final long MAX_PADDED_ELEMENTS = 1024;

  private static final int ARRAY_TAG = WireType.tag(AnyValue.ARRAY_VALUE, WireType.LEN);
  private static final int KVLIST_TAG = WireType.tag(AnyValue.KVLIST_VALUE, WireType.LEN);
  private static final int ENTRY_TAG = WireType.tag(KeyValueList.VALUES, WireType.LEN);
  private static final int ELEMENT_TAG = WireType.tag(ArrayValue.VALUES, WireType.LEN);
  private static final int KEY_TAG = WireType.tag(KeyValue.KEY, WireType.LEN);
  private static final int VALUE_TAG = WireType.tag(KeyValue.VALUE, WireType.LEN);

  /** The keys below the top one: a name, or null where an index. */
  private final byte[][] names;

  private final long[] indexes;
  private final String path;
  private final AnyValueWriter values;
  // One reader per depth: each level walks its message while the next is written.
  private final WireReader[] readers;
  private final WireReader entryReader = new WireReader();

  /** The member of the value being looked at: its field (0 for none) and payload. */
  private int memberField;

  private int memberOffset;
  private int memberLength;

  NestedWrite(List<Ast.Key> below, String path, AnyValueWriter values) {
    int count = below.size();
    this.names = new byte[count][];
    this.indexes = new long[count];
    for (int i = 0; i < count; i++) {
      Ast.Key key = below.get(i);
      names[i] = key.isIndex() ? null : key.name().getBytes(StandardCharsets.UTF_8);
      indexes[i] = key.index();
    }
    this.path = path;
    this.values = values;
    this.readers = new WireReader[count];
    for (int i = 0; i < count; i++) {
      readers[i] = new WireReader();
    }
  }

  /**
   * Writes into {@code out} the payload of the {@code AnyValue} that {@code bytes[offset, offset +
   * length)} (an {@code AnyValue} payload; absent when {@code present} is false) becomes with
   * {@code value} set at the keys.
   *
   * @throws OttlEvaluationException when a key does not fit the value it indexes
   */
  void write(byte[] bytes, int offset, int length, boolean present, Value value, ProtoWriter out) {
    try {
      write(bytes, offset, length, present, 0, value, out);
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a validated value does not parse", e);
    }
  }

  private void write(
      byte[] bytes,
      int offset,
      int length,
      boolean present,
      int depth,
      Value value,
      ProtoWriter out)
      throws MalformedOtlpException {
    if (depth == names.length) {
      values.write(value, out);
      return;
    }
    if (present) {
      member(bytes, offset, length);
    } else {
      memberField = 0;
    }
    boolean byName = names[depth] != null;
    switch (memberField) {
      case 0 -> {
        if (byName) {
          int map = out.beginLengthDelimited(AnyValue.KVLIST_VALUE);
          newEntry(depth, value, out);
          out.endLengthDelimited(map);
        } else {
          if (indexes[depth] > MAX_PADDED_ELEMENTS) {
            throw new OttlEvaluationException(
                path
                    + ": a new list would be padded with "
                    + indexes[depth]
                    + " empty values; at most "
                    + MAX_PADDED_ELEMENTS);
          }
          int list = out.beginLengthDelimited(AnyValue.ARRAY_VALUE);
          for (long i = 0; i < indexes[depth]; i++) {
            out.writeLengthDelimitedHeader(ArrayValue.VALUES, 0);
          }
          int element = out.beginLengthDelimited(ArrayValue.VALUES);
          write(bytes, 0, 0, false, depth + 1, value, out);
          out.endLengthDelimited(element);
          out.endLengthDelimited(list);
        }
      }
      case AnyValue.KVLIST_VALUE -> {
        if (!byName) {
          throw unfit("map", depth);
        }
        int map = out.beginLengthDelimited(AnyValue.KVLIST_VALUE);
        editMap(bytes, memberOffset, memberLength, depth, value, out);
        out.endLengthDelimited(map);
      }
      case AnyValue.ARRAY_VALUE -> {
        if (byName) {
          throw unfit("list", depth);
        }
        int list = out.beginLengthDelimited(AnyValue.ARRAY_VALUE);
        editList(bytes, memberOffset, memberLength, depth, value, out);
        out.endLengthDelimited(list);
      }
      default -> throw unfit(memberName(memberField), depth);
    }
  }

  /** The entries of a {@code KeyValueList}: the first with the key takes the rest of the path. */
  private void editMap(
      byte[] bytes, int offset, int length, int depth, Value value, ProtoWriter out)
      throws MalformedOtlpException {
    WireReader reader = readers[depth];
    reader.wrap(bytes, offset, length);
    boolean written = false;
    while (reader.hasRemaining()) {
      int fieldStart = reader.position();
      int tag = reader.readTag();
      if (tag != ENTRY_TAG || written) {
        reader.skipValue(tag, MAX_GROUP_DEPTH);
        out.writeBytes(bytes, fieldStart, reader.position() - fieldStart);
        continue;
      }
      int entryLength = reader.readLength();
      int entryStart = reader.position();
      reader.position(entryStart + entryLength);
      long key = -1;
      long entryValue = -1;
      entryReader.wrap(bytes, entryStart, entryLength);
      while (entryReader.hasRemaining()) {
        int entryTag = entryReader.readTag();
        if (entryTag == KEY_TAG || entryTag == VALUE_TAG) {
          int size = entryReader.readLength();
          long at = ((long) entryReader.position() << 32) | size;
          entryReader.position(entryReader.position() + size);
          if (entryTag == KEY_TAG) {
            key = at;
          } else {
            entryValue = at;
          }
        } else {
          entryReader.skipValue(entryTag, MAX_GROUP_DEPTH);
        }
      }
      byte[] name = names[depth];
      int keyOffset = key < 0 ? entryStart : MessageRewriter.high(key);
      int keyLength = key < 0 ? 0 : MessageRewriter.low(key);
      if (!Arrays.equals(bytes, keyOffset, keyOffset + keyLength, name, 0, name.length)) {
        out.writeBytes(bytes, fieldStart, reader.position() - fieldStart);
        continue;
      }
      written = true;
      int entry = out.beginLengthDelimited(KeyValueList.VALUES);
      out.writeLengthDelimitedHeader(KeyValue.KEY, name.length);
      out.writeBytes(name, 0, name.length);
      int any = out.beginLengthDelimited(KeyValue.VALUE);
      if (entryValue < 0) {
        write(bytes, 0, 0, false, depth + 1, value, out);
      } else {
        write(
            bytes,
            MessageRewriter.high(entryValue),
            MessageRewriter.low(entryValue),
            true,
            depth + 1,
            value,
            out);
      }
      out.endLengthDelimited(any);
      out.endLengthDelimited(entry);
    }
    if (!written) {
      newEntry(depth, value, out);
    }
  }

  /** The elements of an {@code ArrayValue}: the one at the index takes the rest of the path. */
  private void editList(
      byte[] bytes, int offset, int length, int depth, Value value, ProtoWriter out)
      throws MalformedOtlpException {
    WireReader reader = readers[depth];
    reader.wrap(bytes, offset, length);
    long index = indexes[depth];
    long seen = 0;
    while (reader.hasRemaining()) {
      int fieldStart = reader.position();
      int tag = reader.readTag();
      if (tag != ELEMENT_TAG || seen++ != index) {
        reader.skipValue(tag, MAX_GROUP_DEPTH);
        out.writeBytes(bytes, fieldStart, reader.position() - fieldStart);
        continue;
      }
      int elementLength = reader.readLength();
      int elementStart = reader.position();
      reader.position(elementStart + elementLength);
      int element = out.beginLengthDelimited(ArrayValue.VALUES);
      write(bytes, elementStart, elementLength, true, depth + 1, value, out);
      out.endLengthDelimited(element);
    }
    if (seen <= index) {
      throw new OttlEvaluationException(
          path + ": index " + index + " out of range for a list of " + seen);
    }
  }

  /**
   * The map at the keys inside the {@code AnyValue} {@code bytes[offset, offset + length)} (absent
   * when {@code present} is false): its {@code KeyValueList} payload's offset in the high half and
   * length in the low half.
   *
   * @throws OttlEvaluationException when there is no map there, as the Collector's map editors fail
   *     on a value that is not a map
   */
  long findMap(byte[] bytes, int offset, int length, boolean present) {
    try {
      int at = offset;
      int size = length;
      boolean has = present;
      for (int depth = 0; ; depth++) {
        if (!has) {
          throw new OttlEvaluationException(path + ": expected a map, found nil");
        }
        member(bytes, at, size);
        if (depth == names.length) {
          if (memberField != AnyValue.KVLIST_VALUE) {
            throw new OttlEvaluationException(
                path
                    + ": expected a map, found "
                    + (memberField == 0 ? "nil" : "a " + memberName(memberField)));
          }
          return ((long) memberOffset << 32) | memberLength;
        }
        long found = names[depth] != null ? mapEntry(bytes, depth) : listElement(bytes, depth);
        has = found >= 0;
        at = MessageRewriter.high(found);
        size = MessageRewriter.low(found);
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a validated value does not parse", e);
    }
  }

  /** In the map just found by {@link #member}, the value of the key at {@code depth}, or -1. */
  private long mapEntry(byte[] bytes, int depth) throws MalformedOtlpException {
    if (memberField != AnyValue.KVLIST_VALUE) {
      throw unfit(memberField == 0 ? "nil" : memberName(memberField), depth);
    }
    WireReader reader = readers[depth];
    reader.wrap(bytes, memberOffset, memberLength);
    byte[] name = names[depth];
    while (reader.hasRemaining()) {
      int tag = reader.readTag();
      if (tag != ENTRY_TAG) {
        reader.skipValue(tag, MAX_GROUP_DEPTH);
        continue;
      }
      int entryLength = reader.readLength();
      int entryStart = reader.position();
      reader.position(entryStart + entryLength);
      long key = -1;
      long value = -1;
      entryReader.wrap(bytes, entryStart, entryLength);
      while (entryReader.hasRemaining()) {
        int entryTag = entryReader.readTag();
        if (entryTag == KEY_TAG || entryTag == VALUE_TAG) {
          int fieldSize = entryReader.readLength();
          long range = ((long) entryReader.position() << 32) | fieldSize;
          entryReader.position(entryReader.position() + fieldSize);
          if (entryTag == KEY_TAG) {
            key = range;
          } else {
            value = range;
          }
        } else {
          entryReader.skipValue(entryTag, MAX_GROUP_DEPTH);
        }
      }
      int keyOffset = key < 0 ? entryStart : MessageRewriter.high(key);
      int keyLength = key < 0 ? 0 : MessageRewriter.low(key);
      if (Arrays.equals(bytes, keyOffset, keyOffset + keyLength, name, 0, name.length)) {
        return value;
      }
    }
    return -1;
  }

  /** In the list just found by {@link #member}, the element at {@code depth}'s index. */
  private long listElement(byte[] bytes, int depth) throws MalformedOtlpException {
    if (memberField != AnyValue.ARRAY_VALUE) {
      throw unfit(memberField == 0 ? "nil" : memberName(memberField), depth);
    }
    WireReader reader = readers[depth];
    reader.wrap(bytes, memberOffset, memberLength);
    long seen = 0;
    while (reader.hasRemaining()) {
      int tag = reader.readTag();
      if (tag != ELEMENT_TAG) {
        reader.skipValue(tag, MAX_GROUP_DEPTH);
        continue;
      }
      int elementLength = reader.readLength();
      int elementStart = reader.position();
      reader.position(elementStart + elementLength);
      if (seen++ == indexes[depth]) {
        return ((long) elementStart << 32) | elementLength;
      }
    }
    throw new OttlEvaluationException(
        path + ": index " + indexes[depth] + " out of range for a list of " + seen);
  }

  /** A {@code KeyValueList} entry for a key that was not there, with the rest of the path. */
  private void newEntry(int depth, Value value, ProtoWriter out) throws MalformedOtlpException {
    byte[] name = names[depth];
    int entry = out.beginLengthDelimited(KeyValueList.VALUES);
    out.writeLengthDelimitedHeader(KeyValue.KEY, name.length);
    out.writeBytes(name, 0, name.length);
    int any = out.beginLengthDelimited(KeyValue.VALUE);
    write(name, 0, 0, false, depth + 1, value, out);
    out.endLengthDelimited(any);
    out.endLengthDelimited(entry);
  }

  /** Finds the member of the {@code AnyValue} payload: the last one on the wire wins. */
  private void member(byte[] bytes, int offset, int length) throws MalformedOtlpException {
    memberField = 0;
    entryReader.wrap(bytes, offset, length);
    while (entryReader.hasRemaining()) {
      int tag = entryReader.readTag();
      int field = tag >>> 3;
      if (tag == ARRAY_TAG || tag == KVLIST_TAG) {
        memberLength = entryReader.readLength();
        memberOffset = entryReader.position();
        entryReader.position(memberOffset + memberLength);
        memberField = field;
      } else {
        entryReader.skipValue(tag, MAX_GROUP_DEPTH);
        if (field >= AnyValue.STRING_VALUE && field <= AnyValue.BYTES_VALUE) {
          memberField = field;
        }
      }
    }
  }

  private OttlEvaluationException unfit(String what, int depth) {
    String key =
        names[depth] == null
            ? "[" + indexes[depth] + "]"
            : "[\"" + new String(names[depth], StandardCharsets.UTF_8) + "\"]";
    return new OttlEvaluationException(path + ": cannot index a " + what + " with " + key);
  }

  private static String memberName(int field) {
    return switch (field) {
      case AnyValue.STRING_VALUE -> "string";
      case AnyValue.BOOL_VALUE -> "bool";
      case AnyValue.INT_VALUE -> "int";
      case AnyValue.DOUBLE_VALUE -> "double";
      default -> "bytes";
    };
  }
}
