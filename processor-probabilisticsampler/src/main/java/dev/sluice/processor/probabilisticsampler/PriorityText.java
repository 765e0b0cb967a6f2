package dev.sluice.processor.probabilisticsampler;

import java.nio.charset.StandardCharsets;

/**
 * The sign of a {@code sampling.priority} given as a string, read as the OpenTelemetry Collector
 * reads it (Go's {@code strconv.ParseFloat}): Go float syntax only (decimal or hex with a {@code p}
 * exponent, {@code _} between digits, {@code inf}/{@code infinity}/{@code nan}), no spaces; a value
 * that overflows is an error. Anything it refuses leaves the decision to the sampler.
 */
final class PriorityText {
  /** Not a number Go reads, or negative, or NaN: the sampler decides. */
  static final int DEFER = -1;

  /** Zero: never sample. */
  static final int ZERO = 0;

  /** Positive: always sample. */
  static final int POSITIVE = 1;

  private static final byte[] INF = "inf".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] INFINITY = "infinity".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NAN = "nan".getBytes(StandardCharsets.US_ASCII);

  private PriorityText() {}

  /** {@link #DEFER}, {@link #ZERO} or {@link #POSITIVE} for the UTF-8 text. */
  static int classify(byte[] text, int offset, int length) {
    int end = offset + length;
    if (length == 0) {
      return DEFER;
    }
    int p = offset;
    boolean negative = false;
    if (text[p] == '+' || text[p] == '-') {
      negative = text[p] == '-';
      p++;
    }
    if (equalsIgnoreCase(text, p, end, INF) || equalsIgnoreCase(text, p, end, INFINITY)) {
      return negative ? DEFER : POSITIVE;
    }
    if (p == offset && equalsIgnoreCase(text, p, end, NAN)) {
      return DEFER;
    }
    boolean hex = end - p >= 2 && text[p] == '0' && (text[p + 1] == 'x' || text[p + 1] == 'X');
    if (hex) {
      p += 2;
    }
    boolean digits = false;
    boolean nonZero = false;
    boolean dot = false;
    boolean underscores = false;
    for (; p < end; p++) {
      byte c = text[p];
      if (c == '_') {
        underscores = true;
      } else if (c == '.') {
        if (dot) {
          return DEFER;
        }
        dot = true;
      } else if (isDigit(c, hex)) {
        digits = true;
        nonZero |= c != '0';
      } else {
        break;
      }
    }
    if (!digits) {
      return DEFER;
    }
    if (p < end && (hex ? (text[p] | 0x20) == 'p' : (text[p] | 0x20) == 'e')) {
      p++;
      if (p < end && (text[p] == '+' || text[p] == '-')) {
        p++;
      }
      if (p == end || text[p] < '0' || text[p] > '9') {
        return DEFER;
      }
      while (p < end && ((text[p] >= '0' && text[p] <= '9') || text[p] == '_')) {
        underscores |= text[p] == '_';
        p++;
      }
    } else if (hex) {
      return DEFER; // a hex float needs its binary exponent
    }
    if (p != end || (underscores && !underscoresBetweenDigits(text, offset, end))) {
      return DEFER;
    }
    if (!nonZero) {
      return ZERO;
    }
    if (negative) {
      return DEFER;
    }
    // A positive mantissa: only the exponent can make it 0 (underflow) or an error (overflow).
    // Rare enough (a string priority) to let the JDK parse it.
    String plain = new String(text, offset, length, StandardCharsets.US_ASCII).replace("_", "");
    double value = Double.parseDouble(plain);
    if (Double.isInfinite(value)) {
      return DEFER;
    }
    return value == 0 ? ZERO : POSITIVE;
  }

  private static boolean isDigit(byte c, boolean hex) {
    return (c >= '0' && c <= '9') || (hex && ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'));
  }

  /** Go's rule: an underscore only between digits, or between the base prefix and a digit. */
  private static boolean underscoresBetweenDigits(byte[] text, int offset, int end) {
    int p = offset;
    if (p < end && (text[p] == '+' || text[p] == '-')) {
      p++;
    }
    char saw = '^';
    boolean hex = false;
    if (end - p >= 2 && text[p] == '0' && (text[p + 1] | 0x20) == 'x') {
      p += 2;
      saw = '0';
      hex = true;
    }
    for (; p < end; p++) {
      byte c = text[p];
      if (isDigit(c, hex)) {
        saw = '0';
      } else if (c == '_') {
        if (saw != '0') {
          return false;
        }
        saw = '_';
      } else {
        if (saw == '_') {
          return false;
        }
        saw = '!';
      }
    }
    return saw != '_';
  }

  private static boolean equalsIgnoreCase(byte[] text, int start, int end, byte[] lower) {
    if (end - start != lower.length) {
      return false;
    }
    for (int i = 0; i < lower.length; i++) {
      if ((text[start + i] | 0x20) != lower[i]) {
        return false;
      }
    }
    return true;
  }
}
