package dev.sluice.bench.hostile;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A protobuf message read into a tree of fields, best effort: a length-delimited payload that reads
 * as a message becomes children, anything else stays raw bytes. Written back with every length
 * recomputed, so that structural mutations (a duplicated or dropped submessage, a changed tag) keep
 * the framing of the enclosing messages right and reach the validator's deeper checks.
 */
final class WireTree {
  static final int VARINT = 0;
  static final int FIXED64 = 1;
  static final int LEN = 2;
  static final int START_GROUP = 3;
  static final int END_GROUP = 4;
  static final int FIXED32 = 5;

  /** Payloads are not read as messages past this depth: inputs are requests a few levels deep. */
  private static final int MAX_DEPTH = 12;

  /** One field: its tag, and either raw payload bytes or child fields. */
  static final class Field {
    long tag;
    byte[] raw;
    List<Field> children;

    Field(long tag, byte[] raw, List<Field> children) {
      this.tag = tag;
      this.raw = raw;
      this.children = children;
    }

    int wireType() {
      return (int) (tag & 7);
    }

    Field copy() {
      List<Field> copied = null;
      if (children != null) {
        copied = new ArrayList<>(children.size());
        for (Field child : children) {
          copied.add(child.copy());
        }
      }
      return new Field(tag, raw, copied);
    }
  }

  private WireTree() {}

  /** The fields of {@code bytes}, or null where they do not read as a message. */
  static List<Field> parse(byte[] bytes, int from, int to, int depth) {
    List<Field> fields = new ArrayList<>();
    int[] at = {from};
    while (at[0] < to) {
      long tag = readVarint(bytes, at, to);
      if (tag < 0 || (tag >>> 3) == 0) {
        return null;
      }
      int start = at[0];
      switch ((int) (tag & 7)) {
        case VARINT:
          if (readVarint(bytes, at, to) < 0) {
            return null;
          }
          fields.add(new Field(tag, slice(bytes, start, at[0]), null));
          break;
        case FIXED64:
          if (to - start < 8) {
            return null;
          }
          at[0] = start + 8;
          fields.add(new Field(tag, slice(bytes, start, at[0]), null));
          break;
        case FIXED32:
          if (to - start < 4) {
            return null;
          }
          at[0] = start + 4;
          fields.add(new Field(tag, slice(bytes, start, at[0]), null));
          break;
        case LEN:
          {
            long length = readVarint(bytes, at, to);
            if (length < 0 || length > to - at[0]) {
              return null;
            }
            int payloadStart = at[0];
            int payloadEnd = (int) (payloadStart + length);
            List<Field> children =
                depth < MAX_DEPTH && length > 0
                    ? parse(bytes, payloadStart, payloadEnd, depth + 1)
                    : null;
            fields.add(
                new Field(
                    tag,
                    children == null ? slice(bytes, payloadStart, payloadEnd) : null,
                    children));
            at[0] = payloadEnd;
            break;
          }
        default:
          return null;
      }
    }
    return fields;
  }

  static byte[] write(List<Field> fields) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    writeTo(fields, out);
    return out.toByteArray();
  }

  private static void writeTo(List<Field> fields, ByteArrayOutputStream out) {
    for (Field field : fields) {
      writeVarint(out, field.tag);
      byte[] payload = field.children != null ? write(field.children) : field.raw;
      if (field.wireType() == LEN) {
        writeVarint(out, payload.length);
      }
      // A field whose wire type was rewritten keeps its old payload, now framed wrongly.
      out.write(payload, 0, payload.length);
    }
  }

  /** Every field of the tree, depth first, with the list that holds it. */
  static void collect(List<Field> fields, List<Field> allFields, List<List<Field>> owners) {
    for (Field field : fields) {
      allFields.add(field);
      owners.add(fields);
      if (field.children != null) {
        collect(field.children, allFields, owners);
      }
    }
  }

  static long readVarint(byte[] bytes, int[] at, int to) {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at[0] >= to) {
        return -1;
      }
      byte b = bytes[at[0]++];
      value |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return value;
      }
    }
    return -1;
  }

  static void writeVarint(ByteArrayOutputStream out, long value) {
    while ((value & ~0x7fL) != 0) {
      out.write((int) ((value & 0x7f) | 0x80));
      value >>>= 7;
    }
    out.write((int) value);
  }

  static byte[] varint(long value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(10);
    writeVarint(out, value);
    return out.toByteArray();
  }

  private static byte[] slice(byte[] bytes, int from, int to) {
    byte[] copy = new byte[to - from];
    System.arraycopy(bytes, from, copy, 0, copy.length);
    return copy;
  }
}
