package dev.sluice.pdata.internal;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.internal.OtlpFields.ArrayValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValueList;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Text forms of attribute values as the Go collector writes them ({@code pcommon.Value.AsString},
 * {@code strconv.ParseInt} and {@code ParseFloat}), for the {@code convert} action. The common
 * paths (ints, bools, bytes) write into the caller's buffer; doubles and nested values go through a
 * {@code String}, which allocates, as those conversions are rare.
 */
public final class ValueFormats {
  private static final byte[] BASE64 =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
          .getBytes(StandardCharsets.US_ASCII);
  private static final int SIX_BITS = 0x3F;

  /** Go switches to exponent form outside [1e-6, 1e21), as ECMAScript's number to string does. */
  private static final double SMALLEST_PLAIN = 1e-6;

  private static final double LARGEST_PLAIN = 1e21;

  /** -2^63 as a double: the smallest double that fits an int64. */
  private static final double MIN_INT64 = -0x1p63;

  private static final int DECIMAL_DIGITS_MAX = 20;

  private static final int MAX_GROUP_DEPTH = 100;

  private ValueFormats() {}

  /** Writes {@code value} in decimal at {@code out[at]}; returns the end. */
  public static int decimal(long value, byte[] out, int at) {
    if (value == Long.MIN_VALUE) {
      byte[] min = "-9223372036854775808".getBytes(StandardCharsets.US_ASCII);
      System.arraycopy(min, 0, out, at, min.length);
      return at + min.length;
    }
    int p = at;
    long v = value;
    if (v < 0) {
      out[p++] = '-';
      v = -v;
    }
    int digitsStart = p;
    do {
      out[p++] = (byte) ('0' + v % 10);
      v /= 10;
    } while (v != 0);
    for (int i = digitsStart, j = p - 1; i < j; i++, j--) {
      byte t = out[i];
      out[i] = out[j];
      out[j] = t;
    }
    return p;
  }

  /** The most bytes {@link #decimal} writes. */
  public static int decimalMaxBytes() {
    return DECIMAL_DIGITS_MAX;
  }

  /** Standard base64 with padding, as Go's {@code base64.StdEncoding}; returns the end. */
  static int base64(byte[] src, int offset, int length, byte[] out, int at) {
    int p = at;
    int i = offset;
    int end = offset + length;
    while (end - i >= 3) {
      int bits = (src[i] & 0xFF) << 16 | (src[i + 1] & 0xFF) << 8 | (src[i + 2] & 0xFF);
      out[p++] = BASE64[bits >>> 18];
      out[p++] = BASE64[(bits >>> 12) & SIX_BITS];
      out[p++] = BASE64[(bits >>> 6) & SIX_BITS];
      out[p++] = BASE64[bits & SIX_BITS];
      i += 3;
    }
    if (end - i == 1) {
      int bits = (src[i] & 0xFF) << 16;
      out[p++] = BASE64[bits >>> 18];
      out[p++] = BASE64[(bits >>> 12) & SIX_BITS];
      out[p++] = '=';
      out[p++] = '=';
    } else if (end - i == 2) {
      int bits = (src[i] & 0xFF) << 16 | (src[i + 1] & 0xFF) << 8;
      out[p++] = BASE64[bits >>> 18];
      out[p++] = BASE64[(bits >>> 12) & SIX_BITS];
      out[p++] = BASE64[(bits >>> 6) & SIX_BITS];
      out[p++] = '=';
    }
    return p;
  }

  static int base64Length(int length) {
    return (length + 2) / 3 * 4;
  }

  /** Go's {@code int64(f)} on amd64: truncation, and the smallest int64 for NaN and overflow. */
  static long goInt64(double f) {
    if (Double.isNaN(f) || f < MIN_INT64 || f >= -MIN_INT64) {
      return Long.MIN_VALUE;
    }
    return (long) f;
  }

  /**
   * A double as Go's {@code AsString} writes it: shortest digits, plain between 1e-6 and 1e21,
   * otherwise {@code 1.5e-07} written {@code 1.5e-7} and {@code 1e+21}; NaN and infinities as the
   * JSON error text Go puts there.
   */
  public static String goDouble(double f) {
    if (Double.isNaN(f)) {
      return "json: unsupported value: NaN";
    }
    if (Double.isInfinite(f)) {
      return "json: unsupported value: " + (f > 0 ? "+Inf" : "-Inf");
    }
    if (f == 0) {
      return 1 / f < 0 ? "-0" : "0";
    }
    BigDecimal shortest = new BigDecimal(Double.toString(f)).stripTrailingZeros();
    double abs = Math.abs(f);
    if (abs >= SMALLEST_PLAIN && abs < LARGEST_PLAIN) {
      return shortest.toPlainString();
    }
    String digits = shortest.unscaledValue().abs().toString();
    int exponent = digits.length() - 1 - shortest.scale();
    StringBuilder text = new StringBuilder(digits.length() + 8);
    if (f < 0) {
      text.append('-');
    }
    text.append(digits.charAt(0));
    if (digits.length() > 1) {
      text.append('.').append(digits, 1, digits.length());
    }
    text.append('e').append(exponent < 0 ? '-' : '+');
    int magnitude = Math.abs(exponent);
    if (exponent > 0 && magnitude < 10) {
      text.append('0');
    }
    return text.append(magnitude).toString();
  }

  /**
   * Parses {@code [offset, offset + length)} as Go's {@code strconv.ParseInt(s, 10, 64)} does: an
   * optional sign and decimal digits, within int64. Returns false (and leaves {@code result}) when
   * it does not parse.
   */
  static boolean parseGoInt(byte[] bytes, int offset, int length, long[] result) {
    int p = offset;
    int end = offset + length;
    boolean negative = false;
    if (p < end && (bytes[p] == '+' || bytes[p] == '-')) {
      negative = bytes[p] == '-';
      p++;
    }
    if (p == end) {
      return false;
    }
    // Accumulate negatively: -2^63 has no positive counterpart.
    long value = 0;
    for (; p < end; p++) {
      int digit = bytes[p] - '0';
      if (digit < 0 || digit > 9) {
        return false;
      }
      if (value < (Long.MIN_VALUE + digit) / 10) {
        return false;
      }
      value = value * 10 - digit;
    }
    if (!negative && value == Long.MIN_VALUE) {
      return false;
    }
    result[0] = negative ? value : -value;
    return true;
  }

  /**
   * Parses text as Go's {@code strconv.ParseFloat(s, 64)} does: decimal or hexadecimal (with a
   * {@code p} exponent) literals with an optional sign, {@code inf}, {@code infinity} and {@code
   * nan} in any case; a value out of range does not parse (Go reports a range error). Digit
   * separators ({@code _}), which Go allows after a base prefix only, are refused.
   */
  static boolean parseGoDouble(byte[] bytes, int offset, int length, double[] result) {
    String text = new String(bytes, offset, length, StandardCharsets.UTF_8);
    String unsigned = text.startsWith("+") || text.startsWith("-") ? text.substring(1) : text;
    boolean negative = text.startsWith("-");
    String lower = unsigned.toLowerCase(java.util.Locale.ROOT);
    if (lower.equals("inf") || lower.equals("infinity")) {
      result[0] = negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
      return true;
    }
    if (lower.equals("nan") && unsigned.length() == text.length()) {
      result[0] = Double.NaN;
      return true;
    }
    if (!(lower.startsWith("0x") ? isHexFloat(lower.substring(2)) : isDecimalFloat(lower))) {
      return false;
    }
    double value = Double.parseDouble(text);
    if (Double.isInfinite(value)) {
      return false;
    }
    result[0] = value;
    return true;
  }

  private static boolean isDecimalFloat(String s) {
    int i = 0;
    int digits = 0;
    while (i < s.length() && isDigit(s.charAt(i))) {
      i++;
      digits++;
    }
    if (i < s.length() && s.charAt(i) == '.') {
      i++;
      while (i < s.length() && isDigit(s.charAt(i))) {
        i++;
        digits++;
      }
    }
    if (digits == 0) {
      return false;
    }
    if (i < s.length() && s.charAt(i) == 'e') {
      i = exponent(s, i + 1);
    }
    return i == s.length();
  }

  private static boolean isHexFloat(String s) {
    int i = 0;
    int digits = 0;
    while (i < s.length() && Character.digit(s.charAt(i), 16) >= 0) {
      i++;
      digits++;
    }
    if (i < s.length() && s.charAt(i) == '.') {
      i++;
      while (i < s.length() && Character.digit(s.charAt(i), 16) >= 0) {
        i++;
        digits++;
      }
    }
    if (digits == 0 || i >= s.length() || s.charAt(i) != 'p') {
      return false;
    }
    return exponent(s, i + 1) == s.length();
  }

  /** The end of an exponent's optional sign and digits starting at {@code i}; -1 if none. */
  private static int exponent(String s, int i) {
    int p = i;
    if (p < s.length() && (s.charAt(p) == '+' || s.charAt(p) == '-')) {
      p++;
    }
    int start = p;
    while (p < s.length() && isDigit(s.charAt(p))) {
      p++;
    }
    return p == start ? -1 : p;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /**
   * An array or key-value list as Go's {@code AsString} writes it: JSON of its raw value, map keys
   * sorted, HTML characters escaped as Go's {@code encoding/json} does; the empty string when the
   * JSON cannot be written (a NaN or infinity inside, as Go fails there).
   */
  public static String json(byte[] anyValue, int offset, int length) {
    StringBuilder out = new StringBuilder();
    try {
      if (!writeJson(anyValue, offset, length, out)) {
        return "";
      }
    } catch (MalformedOtlpException e) {
      return "";
    }
    return out.toString();
  }

  private static boolean writeJson(byte[] b, int offset, int length, StringBuilder out)
      throws MalformedOtlpException {
    WireReader reader = new WireReader().wrap(b, offset, length);
    int field = 0;
    long bits = 0;
    int start = 0;
    int len = 0;
    while (reader.hasRemaining()) {
      int tag = reader.readTag();
      int number = tag >>> 3;
      int wire = tag & 7;
      if (number >= AnyValue.STRING_VALUE && number <= AnyValue.BYTES_VALUE) {
        field = number;
        if (wire == WireType.LEN) {
          len = reader.readLength();
          start = reader.position();
          reader.position(start + len);
        } else if (wire == WireType.I64) {
          bits = reader.readFixed64();
        } else {
          bits = reader.readVarint64();
        }
      } else {
        reader.skipValue(tag, MAX_GROUP_DEPTH);
      }
    }
    switch (field) {
      case AnyValue.STRING_VALUE -> quote(new String(b, start, len, StandardCharsets.UTF_8), out);
      case AnyValue.BOOL_VALUE -> out.append(bits != 0);
      case AnyValue.INT_VALUE -> out.append(bits);
      case AnyValue.DOUBLE_VALUE -> {
        double d = Double.longBitsToDouble(bits);
        if (Double.isNaN(d) || Double.isInfinite(d)) {
          return false;
        }
        out.append(goDouble(d));
      }
      case AnyValue.BYTES_VALUE -> {
        byte[] encoded = new byte[base64Length(len)];
        base64(b, start, len, encoded, 0);
        out.append('"').append(new String(encoded, StandardCharsets.US_ASCII)).append('"');
      }
      case AnyValue.ARRAY_VALUE -> {
        out.append('[');
        WireReader elements = new WireReader().wrap(b, start, len);
        boolean first = true;
        while (elements.hasRemaining()) {
          int tag = elements.readTag();
          if (tag != WireType.tag(ArrayValue.VALUES, WireType.LEN)) {
            elements.skipValue(tag, MAX_GROUP_DEPTH);
            continue;
          }
          int elementLength = elements.readLength();
          int elementStart = elements.position();
          elements.position(elementStart + elementLength);
          if (!first) {
            out.append(',');
          }
          first = false;
          if (!writeJson(b, elementStart, elementLength, out)) {
            return false;
          }
        }
        out.append(']');
      }
      case AnyValue.KVLIST_VALUE -> {
        return writeJsonMap(b, start, len, out);
      }
      default -> out.append("null");
    }
    return true;
  }

  /** One map entry: its key and where its AnyValue is. */
  private record JsonEntry(byte[] key, int valueStart, int valueLength) {}

  private static boolean writeJsonMap(byte[] b, int start, int len, StringBuilder out)
      throws MalformedOtlpException {
    List<JsonEntry> entries = new ArrayList<>();
    WireReader reader = new WireReader().wrap(b, start, len);
    while (reader.hasRemaining()) {
      int tag = reader.readTag();
      if (tag != WireType.tag(KeyValueList.VALUES, WireType.LEN)) {
        reader.skipValue(tag, MAX_GROUP_DEPTH);
        continue;
      }
      int entryLength = reader.readLength();
      int entryStart = reader.position();
      reader.position(entryStart + entryLength);
      WireReader kv = new WireReader().wrap(b, entryStart, entryLength);
      byte[] key = new byte[0];
      int valueStart = 0;
      int valueLength = 0;
      while (kv.hasRemaining()) {
        int kvTag = kv.readTag();
        if (kvTag == WireType.tag(KeyValue.KEY, WireType.LEN)) {
          int keyLength = kv.readLength();
          key = Arrays.copyOfRange(b, kv.position(), kv.position() + keyLength);
          kv.position(kv.position() + keyLength);
        } else if (kvTag == WireType.tag(KeyValue.VALUE, WireType.LEN)) {
          valueLength = kv.readLength();
          valueStart = kv.position();
          kv.position(valueStart + valueLength);
        } else {
          kv.skipValue(kvTag, MAX_GROUP_DEPTH);
        }
      }
      // A later entry with the same key wins, as building a Go map does.
      byte[] entryKey = key;
      entries.removeIf(e -> Arrays.equals(e.key, entryKey));
      entries.add(new JsonEntry(key, valueStart, valueLength));
    }
    entries.sort((x, y) -> Arrays.compareUnsigned(x.key, y.key));
    out.append('{');
    for (int i = 0; i < entries.size(); i++) {
      JsonEntry e = entries.get(i);
      if (i > 0) {
        out.append(',');
      }
      quote(new String(e.key, StandardCharsets.UTF_8), out);
      out.append(':');
      if (!writeJson(b, e.valueStart, e.valueLength, out)) {
        return false;
      }
    }
    out.append('}');
    return true;
  }

  /** A JSON string as Go's {@code encoding/json} writes it, HTML characters escaped. */
  private static void quote(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
