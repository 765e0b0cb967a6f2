package dev.sluice.pdata.build;

import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.Varint;
import dev.sluice.pdata.internal.WireType;
import dev.sluice.pdata.view.SpanView;
import java.util.Objects;

/**
 * Writes one field as protobuf-java writes it: a proto3 field that holds its default (zero, empty,
 * false, {@code +0.0}) is left out, except where the field has presence (oneof members, {@code
 * optional} fields), for which the callers use the {@code ...Always} forms. The checks that make
 * the builders valid by construction (ID lengths, enum ranges) are here too.
 */
final class Fields {
  /** Longest string, in chars, that can be encoded (three bytes a char) without overflow. */
  private static final int MAX_STRING_CHARS = (Integer.MAX_VALUE - 16) / 3;

  static final int TRACE_ID_BYTES = SpanView.TRACE_ID_BYTES;
  static final int SPAN_ID_BYTES = SpanView.SPAN_ID_BYTES;

  private Fields() {}

  /** A string field, left out when empty. */
  static void string(ProtoWriter out, int field, CharSequence value) {
    if (Objects.requireNonNull(value, "a string value is null").length() > 0) {
      stringAlways(out, field, value);
    }
  }

  /** A string field written even when empty (a oneof member). */
  static void stringAlways(ProtoWriter out, int field, CharSequence value) {
    out.writeTag(field, WireType.LEN);
    out.ensureRemaining(5 + utf8Room(value.length()));
    byte[] b = out.array();
    int mark = out.size();
    int end = endLength(b, mark, utf8(value, b, mark + 1));
    out.advance(end - mark);
  }

  /** The most bytes {@code chars} chars take in UTF-8: three each (a surrogate pair takes four). */
  static int utf8Room(int chars) {
    if (chars > MAX_STRING_CHARS) {
      throw new IllegalArgumentException("a string of " + chars + " chars is too long to encode");
    }
    return 3 * chars;
  }

  /**
   * Encodes {@code value} into {@code b} from {@code p}, which has {@link #utf8Room} for it, and
   * returns where it ends. Encodes as {@code String.getBytes(UTF_8)} does, which is what
   * protobuf-java falls back to for strings that are not well-formed UTF-16: a surrogate without
   * its pair becomes {@code '?'}. The output is therefore always valid UTF-8.
   */
  static int utf8(CharSequence value, byte[] b, int p) {
    int n = value.length();
    // ASCII, nearly all of telemetry, in a loop of its own that the JIT compiles tight: a String
    // read as a String, the index the loop's own.
    int i = 0;
    if (value instanceof String text) {
      while (i < n) {
        char c = text.charAt(i);
        if (c >= 0x80) {
          break;
        }
        b[p + i] = (byte) c;
        i++;
      }
      p += i;
    }
    while (i < n) {
      char c = value.charAt(i++);
      if (c < 0x80) {
        b[p++] = (byte) c;
      } else if (c < 0x800) {
        b[p++] = (byte) (0xC0 | c >>> 6);
        b[p++] = (byte) (0x80 | c & 0x3F);
      } else if (!Character.isSurrogate(c)) {
        b[p++] = (byte) (0xE0 | c >>> 12);
        b[p++] = (byte) (0x80 | c >>> 6 & 0x3F);
        b[p++] = (byte) (0x80 | c & 0x3F);
      } else if (Character.isHighSurrogate(c)
          && i < n
          && Character.isLowSurrogate(value.charAt(i))) {
        int codePoint = Character.toCodePoint(c, value.charAt(i++));
        b[p++] = (byte) (0xF0 | codePoint >>> 18);
        b[p++] = (byte) (0x80 | codePoint >>> 12 & 0x3F);
        b[p++] = (byte) (0x80 | codePoint >>> 6 & 0x3F);
        b[p++] = (byte) (0x80 | codePoint & 0x3F);
      } else {
        b[p++] = '?';
      }
    }
    return p;
  }

  /**
   * Writes the length of a payload that was written from {@code mark + 1} to {@code end}, into the
   * one byte kept for it at {@code mark}; when it needs more, moves the payload right (the array
   * has up to four bytes of room for that past {@code end}). Returns where the payload now ends.
   */
  static int endLength(byte[] b, int mark, int end) {
    int length = end - mark - 1;
    if (length < 0x80) {
      b[mark] = (byte) length;
      return end;
    }
    int extra = Varint.size32(length) - 1;
    System.arraycopy(b, mark + 1, b, mark + 1 + extra, length);
    int p = mark;
    while ((length & ~0x7F) != 0) {
      b[p++] = (byte) (length & 0x7F | 0x80);
      length >>>= 7;
    }
    b[p] = (byte) length;
    return end + extra;
  }

  /** A bytes field written whatever its length (IDs are checked first; a oneof member). */
  static void bytes(ProtoWriter out, int field, byte[] value, int length) {
    out.writeLengthDelimitedHeader(field, length);
    out.writeBytes(value, 0, length);
  }

  static void fixed64(ProtoWriter out, int field, long value) {
    if (value != 0) {
      fixed64Always(out, field, value);
    }
  }

  static void fixed64Always(ProtoWriter out, int field, long value) {
    out.writeTag(field, WireType.I64);
    out.writeFixed64(value);
  }

  static void fixed32(ProtoWriter out, int field, int value) {
    if (value != 0) {
      out.writeTag(field, WireType.I32);
      out.writeFixed32(value);
    }
  }

  /** A double, left out when {@code +0.0} (protobuf-java compares the raw bits: -0.0 is kept). */
  static void doubleField(ProtoWriter out, int field, double value) {
    if (Double.doubleToRawLongBits(value) != 0) {
      doubleAlways(out, field, value);
    }
  }

  static void doubleAlways(ProtoWriter out, int field, double value) {
    out.writeTag(field, WireType.I64);
    out.writeFixed64(Double.doubleToRawLongBits(value));
  }

  /** A uint32 or an enum: the int's 32 bits as an unsigned varint. */
  static void uint32(ProtoWriter out, int field, int value) {
    if (value != 0) {
      out.writeTag(field, WireType.VARINT);
      out.writeVarint32(value);
    }
  }

  static void sint32(ProtoWriter out, int field, int value) {
    uint32(out, field, (value << 1) ^ (value >> 31));
  }

  static void bool(ProtoWriter out, int field, boolean value) {
    if (value) {
      out.writeTag(field, WireType.VARINT);
      out.writeVarint32(1);
    }
  }

  /** A packed {@code repeated fixed64}, left out when empty. */
  static void packedFixed64(ProtoWriter out, int field, long[] values) {
    if (values.length > 0) {
      out.writeLengthDelimitedHeader(field, 8 * values.length);
      for (long value : values) {
        out.writeFixed64(value);
      }
    }
  }

  /** A packed {@code repeated double}, left out when empty. */
  static void packedDouble(ProtoWriter out, int field, double[] values) {
    if (values.length > 0) {
      out.writeLengthDelimitedHeader(field, 8 * values.length);
      for (double value : values) {
        out.writeFixed64(Double.doubleToRawLongBits(value));
      }
    }
  }

  /** A packed {@code repeated uint64}, left out when empty. */
  static void packedUint64(ProtoWriter out, int field, long[] values) {
    if (values.length > 0) {
      int length = 0;
      for (long value : values) {
        length += Varint.size64(value);
      }
      out.writeLengthDelimitedHeader(field, length);
      for (long value : values) {
        out.writeVarint64(value);
      }
    }
  }

  /** Appends what {@code from} holds. */
  static void copy(ProtoWriter out, ProtoWriter from) {
    if (from.size() > 0) {
      out.writeBytes(from.array(), 0, from.size());
    }
  }

  /** Checks an ID's length and copies it into {@code into}, which has the length it must have. */
  static void copyId(byte[] id, byte[] into, String what) {
    if (id == null) {
      throw new NullPointerException(what + " is null");
    }
    if (id.length != into.length) {
      throw new IllegalArgumentException(
          "a " + what + " is " + into.length + " bytes, not " + id.length);
    }
    System.arraycopy(id, 0, into, 0, into.length);
  }

  /** Checks that {@code value} is one of the enum's numbers, 0 to {@code max}. */
  static int checkEnum(int value, int max, String enumName) {
    if (value < 0 || value > max) {
      throw new IllegalArgumentException(
          enumName + " " + value + " is not one of 0 to " + max + " (OtlpEnums." + enumName + ")");
    }
    return value;
  }
}
