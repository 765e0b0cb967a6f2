package dev.sluice.ottl;

import dev.sluice.ottl.Value.Kind;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Comparison and conversion of evaluated values, with OTTL's rules. */
final class Values {
  private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final int MAX_LONG_DIGITS = 20;
  private static final int DECIMAL = 10;

  private Values() {}

  /**
   * {@code left operator right} as OTTL compares: numbers by value (an int and a double as
   * doubles), strings and bytes by their bytes, bools for equality only, nil equal only to nil;
   * values of different types are unequal and unordered (a map or a list too, as in the Collector:
   * {@code body == "x"} is false for a structured body). Two maps or two lists are not compared by
   * this build.
   */
  static boolean compare(TokenKind operator, Value left, Value right) {
    Kind a = left.kind;
    Kind b = right.kind;
    if (a == b && (a == Kind.MAP || a == Kind.LIST)) {
      throw new OttlEvaluationException(
          "comparing a " + left.typeName() + " with a " + right.typeName() + " is not supported");
    }
    if (a == Kind.NIL || b == Kind.NIL) {
      return equalityOnly(operator, a == b);
    }
    if (isNumber(a) && isNumber(b)) {
      int order =
          a == Kind.INT && b == Kind.INT
              ? Long.compare(left.longValue, right.longValue)
              : Double.compare(asDouble(left), asDouble(right));
      if ((a == Kind.DOUBLE && Double.isNaN(left.doubleValue))
          || (b == Kind.DOUBLE && Double.isNaN(right.doubleValue))) {
        return operator == TokenKind.NE; // NaN equals nothing, as in Go
      }
      return ordered(operator, order);
    }
    if (a != b) {
      return equalityOnly(operator, false);
    }
    return switch (a) {
      case BOOL -> equalityOnly(operator, left.boolValue == right.boolValue);
      case STRING, BYTES ->
          ordered(
              operator,
              Arrays.compareUnsigned(
                  left.bytes,
                  left.offset,
                  left.offset + left.length,
                  right.bytes,
                  right.offset,
                  right.offset + right.length));
      default -> throw new IllegalStateException("unexpected " + a);
    };
  }

  private static boolean equalityOnly(TokenKind operator, boolean equal) {
    return switch (operator) {
      case EQ -> equal;
      case NE -> !equal;
      default -> false;
    };
  }

  private static boolean ordered(TokenKind operator, int order) {
    return switch (operator) {
      case EQ -> order == 0;
      case NE -> order != 0;
      case LT -> order < 0;
      case LE -> order <= 0;
      case GT -> order > 0;
      case GE -> order >= 0;
      default -> throw new IllegalStateException("not a comparison: " + operator);
    };
  }

  static boolean isNumber(Kind kind) {
    return kind == Kind.INT || kind == Kind.DOUBLE;
  }

  static double asDouble(Value value) {
    return value.kind == Kind.INT ? (double) value.longValue : value.doubleValue;
  }

  /**
   * Writes {@code value} into {@code into} as a string, as OTTL's string-like arguments take it:
   * strings as they are, numbers in decimal, bools as {@code true}/{@code false}, bytes in
   * lower-case hex; false (and {@code into} untouched) for nil. Maps and lists are refused.
   */
  static boolean toStringValue(Value value, Value into, String function) {
    switch (value.kind) {
      case NIL:
        return false;
      case STRING:
        if (into != value) {
          into.setStringRef(value.bytes, value.offset, value.length);
        }
        return true;
      case INT:
        writeLong(value.longValue, into);
        return true;
      case DOUBLE:
        writeAscii(formatDouble(value.doubleValue), into);
        return true;
      case BOOL:
        byte[] word = value.boolValue ? TRUE : FALSE;
        into.setStringRef(word, 0, word.length);
        return true;
      case BYTES:
        writeHex(value.bytes, value.offset, value.length, into);
        return true;
      default:
        throw new OttlEvaluationException(
            function + " cannot take a " + value.typeName() + " as a string in this build");
    }
  }

  /** Go's {@code strconv.FormatFloat(v, 'f', -1, 64)}: the shortest decimal, no exponent. */
  static String formatDouble(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return new BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
  }

  static void writeLong(long v, Value into) {
    byte[] buffer = into.buffer(MAX_LONG_DIGITS);
    int end = MAX_LONG_DIGITS;
    int p = end;
    long rest = v;
    if (rest == 0) {
      buffer[--p] = '0';
    }
    while (rest != 0) {
      buffer[--p] = (byte) ('0' + Math.abs(rest % DECIMAL));
      rest /= DECIMAL;
    }
    if (v < 0) {
      buffer[--p] = '-';
    }
    into.setStringRef(buffer, p, end - p);
  }

  private static void writeAscii(String text, Value into) {
    byte[] buffer = into.buffer(text.length());
    for (int i = 0; i < text.length(); i++) {
      buffer[i] = (byte) text.charAt(i);
    }
    into.setStringRef(buffer, 0, text.length());
  }

  /** Lower-case hex of {@code bytes[from, from + count)} into {@code into}, which may hold them. */
  static void writeHex(byte[] bytes, int from, int count, Value into) {
    byte[] source = bytes;
    int sourceFrom = from;
    byte[] buffer = into.buffer(2 * count);
    if (source == buffer && sourceFrom != 0) {
      System.arraycopy(source, sourceFrom, buffer, 0, count);
      sourceFrom = 0;
    }
    if (source == buffer) {
      // The holder's own bytes: convert back to front so no byte is overwritten before it is read.
      for (int i = count - 1; i >= 0; i--) {
        int b = source[sourceFrom + i] & 0xFF;
        buffer[2 * i + 1] = HEX_DIGITS[b & 0xF];
        buffer[2 * i] = HEX_DIGITS[b >>> 4];
      }
    } else {
      for (int i = 0; i < count; i++) {
        int b = source[sourceFrom + i] & 0xFF;
        buffer[2 * i] = HEX_DIGITS[b >>> 4];
        buffer[2 * i + 1] = HEX_DIGITS[b & 0xF];
      }
    }
    into.setStringRef(buffer, 0, 2 * count);
  }
}
