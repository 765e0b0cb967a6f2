package dev.sluice.processor.probabilisticsampler;

/**
 * A span's W3C {@code tracestate} with its OpenTelemetry member ({@code ot=rv:...;th:...}) read
 * out, parsed and written back the way the OpenTelemetry Collector's {@code pkg/sampling} does: the
 * same members are refused, a failed parse keeps what was read before the failure, and the written
 * form puts {@code ot} first ({@code rv}, then {@code th}, then its other fields) and the other
 * vendors' members after it, trimmed, in their order.
 *
 * <p>A reusable flyweight: {@link #parse} points it at the bytes (which must stay unchanged until
 * {@link #writeTo}), and nothing is allocated per span.
 */
final class TraceState {
  /** The longest tracestate accepted, in bytes. */
  static final int MAX_LENGTH = 1024;

  /** A tracestate may hold fewer members than this (counting empty ones). */
  static final int MAX_MEMBERS = 32;

  /** The longest {@code ot} value accepted. */
  static final int MAX_OTEL_LENGTH = 256;

  static final int MAX_KEY_LENGTH = 256;
  static final int MAX_TENANT_LENGTH = 241;
  static final int MAX_SYSTEM_LENGTH = 14;
  static final int MAX_VALUE_LENGTH = 256;

  /** The most a written tracestate can be longer than the one read: {@code ot=rv:..;th:..,}. */
  static final int MAX_GROWTH = 3 + 3 + SamplingMath.HEX_DIGITS + 4 + SamplingMath.HEX_DIGITS + 1;

  private static final int MAX_OTEL_FIELDS = MAX_OTEL_LENGTH / 2 + 1;

  private byte[] text;
  private boolean failed;

  private long randomness;
  private int randomnessStart; // -1: none; -2: set by the sampler, written from `randomness`
  private int randomnessLength;

  private long threshold;
  private int thresholdStart; // -1: none; -2: set by the sampler, written from `threshold`
  private int thresholdLength;

  private final int[] otelFields = new int[2 * MAX_OTEL_FIELDS];
  private int otelFieldCount;
  private final int[] members = new int[2 * MAX_MEMBERS];
  private int memberCount;

  /** Reads {@code text[offset, offset + length)}; false when it is not a valid tracestate. */
  boolean parse(byte[] text, int offset, int length) {
    this.text = text;
    failed = false;
    clearOtel();
    memberCount = 0;
    if (length == 0) {
      return true;
    }
    if (length > MAX_LENGTH || !validW3c(text, offset, offset + length)) {
      return fail();
    }
    int end = offset + length;
    int items = 0;
    int p = offset;
    while (p < end) {
      if (++items >= MAX_MEMBERS) {
        return fail();
      }
      int separator = indexOf(text, p, end, (byte) ',');
      int memberEnd = separator < 0 ? end : separator;
      int start = trimStart(text, p, memberEnd);
      int stop = trimEnd(text, start, memberEnd);
      p = separator < 0 ? end : separator + 1;
      int equals = indexOf(text, start, stop, (byte) '=');
      if (equals < 0) {
        continue;
      }
      member(start, equals, stop);
    }
    return !failed;
  }

  private void member(int start, int equals, int stop) {
    int keyLength = equals - start;
    if (keyLength > MAX_KEY_LENGTH) {
      fail();
      return;
    }
    int at = indexOf(text, start, equals, (byte) '@');
    if (at >= 0 && (at - start > MAX_TENANT_LENGTH || equals - at - 1 > MAX_SYSTEM_LENGTH)) {
      fail();
      return;
    }
    if (keyLength == 2 && text[start] == 'o' && text[start + 1] == 't') {
      parseOtel(equals + 1, stop);
      return;
    }
    members[2 * memberCount] = start;
    members[2 * memberCount + 1] = stop - start;
    memberCount++;
  }

  /** Reads an {@code ot} value; a later {@code ot} member replaces an earlier one. */
  private void parseOtel(int start, int end) {
    clearOtel();
    if (end - start > MAX_OTEL_LENGTH || !validOtel(text, start, end)) {
      fail();
      return;
    }
    int p = start;
    while (p < end) {
      int separator = indexOf(text, p, end, (byte) ';');
      int fieldEnd = separator < 0 ? end : separator;
      int fieldStart = p;
      p = separator < 0 ? end : separator + 1;
      int colon = indexOf(text, fieldStart, fieldEnd, (byte) ':');
      int keyLength = colon - fieldStart;
      int valueStart = colon + 1;
      int valueLength = fieldEnd - valueStart;
      if (keyLength == 2 && text[fieldStart] == 'r' && text[fieldStart + 1] == 'v') {
        randomness = SamplingMath.parseRValue(text, valueStart, valueLength);
        if (randomness < 0) {
          randomnessStart = -1;
          fail();
        } else {
          randomnessStart = valueStart;
          randomnessLength = valueLength;
        }
      } else if (keyLength == 2 && text[fieldStart] == 't' && text[fieldStart + 1] == 'h') {
        threshold = SamplingMath.parseTValue(text, valueStart, valueLength);
        if (threshold < 0) {
          thresholdStart = -1;
          threshold = SamplingMath.ALWAYS;
          fail();
        } else {
          thresholdStart = valueStart;
          thresholdLength = valueLength;
        }
      } else {
        otelFields[2 * otelFieldCount] = fieldStart;
        otelFields[2 * otelFieldCount + 1] = fieldEnd - fieldStart;
        otelFieldCount++;
      }
    }
  }

  private void clearOtel() {
    randomnessStart = -1;
    thresholdStart = -1;
    threshold = SamplingMath.ALWAYS;
    otelFieldCount = 0;
  }

  private boolean fail() {
    failed = true;
    return false;
  }

  boolean hasRandomness() {
    return randomnessStart != -1;
  }

  long randomness() {
    return randomness;
  }

  boolean hasThreshold() {
    return thresholdStart != -1;
  }

  long threshold() {
    return threshold;
  }

  /** Sets {@code rv}, written as 14 lowercase hex digits. */
  void setRandomness(long value) {
    randomness = value;
    randomnessStart = -2;
  }

  void clearThreshold() {
    thresholdStart = -1;
    threshold = SamplingMath.ALWAYS;
  }

  /**
   * Records that the item was sampled at {@code sampledThreshold}; refused (false, unchanged) when
   * an arriving threshold is higher, since a sampler cannot raise a probability.
   */
  boolean updateThreshold(long sampledThreshold) {
    if (hasThreshold() && threshold > sampledThreshold) {
      return false;
    }
    threshold = sampledThreshold;
    thresholdStart = sampledThreshold >= SamplingMath.NEVER ? -1 : -2;
    return true;
  }

  /** Writes the tracestate into {@code out} from 0; returns its length. */
  int writeTo(byte[] out) {
    int n = 0;
    boolean otel = hasRandomness() || hasThreshold() || otelFieldCount > 0;
    if (otel) {
      n = put(out, n, 'o', 't', '=');
      int fields = 0;
      if (hasRandomness()) {
        n = put(out, n, 'r', 'v', ':');
        if (randomnessStart == -2) {
          SamplingMath.writeRValue(randomness, out, n);
          n += SamplingMath.HEX_DIGITS;
        } else {
          System.arraycopy(text, randomnessStart, out, n, randomnessLength);
          n += randomnessLength;
        }
        fields++;
      }
      if (hasThreshold()) {
        if (fields++ > 0) {
          out[n++] = ';';
        }
        n = put(out, n, 't', 'h', ':');
        if (thresholdStart == -2) {
          n += SamplingMath.writeTValue(threshold, out, n);
        } else {
          System.arraycopy(text, thresholdStart, out, n, thresholdLength);
          n += thresholdLength;
        }
      }
      for (int i = 0; i < otelFieldCount; i++) {
        if (fields++ > 0) {
          out[n++] = ';';
        }
        n = copy(out, n, otelFields[2 * i], otelFields[2 * i + 1]);
      }
    }
    for (int i = 0; i < memberCount; i++) {
      if (otel || i > 0) {
        out[n++] = ',';
      }
      n = copy(out, n, members[2 * i], members[2 * i + 1]);
    }
    return n;
  }

  private int copy(byte[] out, int n, int start, int length) {
    System.arraycopy(text, start, out, n, length);
    return n + length;
  }

  private static int put(byte[] out, int n, char a, char b, char c) {
    out[n] = (byte) a;
    out[n + 1] = (byte) b;
    out[n + 2] = (byte) c;
    return n + 3;
  }

  // Syntax, byte by byte as pkg/sampling checks it: W3C keys and values, then the ot value's.

  private static boolean validW3c(byte[] text, int offset, int end) {
    int p = offset;
    while (p < end) {
      int separator = indexOf(text, p, end, (byte) ',');
      int memberEnd = separator < 0 ? end : separator;
      int start = trimStart(text, p, memberEnd);
      int stop = trimEnd(text, start, memberEnd);
      p = separator < 0 ? end : separator + 1;
      if (start == stop) {
        continue;
      }
      int equals = indexOf(text, start, stop, (byte) '=');
      if (equals < start + 1
          || !validW3cKey(text, start, equals)
          || !validW3cValue(text, equals + 1, stop)) {
        return false;
      }
    }
    return true;
  }

  private static boolean validW3cKey(byte[] text, int start, int end) {
    int at = indexOf(text, start, end, (byte) '@');
    if (at >= 0) {
      if (at == start || at == end - 1) {
        return false;
      }
      return isLcAlphaNum(text[start])
          && isLcAlpha(text[at + 1])
          && validKeyChars(text, start + 1, at)
          && validKeyChars(text, at + 2, end);
    }
    return isLcAlpha(text[start]) && validKeyChars(text, start + 1, end);
  }

  private static boolean validKeyChars(byte[] text, int start, int end) {
    for (int i = start; i < end; i++) {
      byte c = text[i];
      if (!(isLcAlphaNum(c) || c == '_' || c == '-' || c == '*' || c == '/')) {
        return false;
      }
    }
    return true;
  }

  private static boolean validW3cValue(byte[] text, int start, int end) {
    if (start == end || end - start > MAX_VALUE_LENGTH || !isNonBlankValueChar(text[end - 1])) {
      return false;
    }
    for (int i = start; i < end - 1; i++) {
      if (text[i] != ' ' && !isNonBlankValueChar(text[i])) {
        return false;
      }
    }
    return true;
  }

  private static boolean isNonBlankValueChar(byte c) {
    return (c >= 0x21 && c <= 0x2B) || (c >= 0x2D && c <= 0x3C) || (c >= 0x3E && c <= 0x7E);
  }

  private static boolean validOtel(byte[] text, int start, int end) {
    if (start == end || text[end - 1] == ';') {
      return false;
    }
    int p = start;
    while (p < end) {
      int separator = indexOf(text, p, end, (byte) ';');
      int fieldEnd = separator < 0 ? end : separator;
      int fieldStart = p;
      p = separator < 0 ? end : separator + 1;
      int colon = indexOf(text, fieldStart, fieldEnd, (byte) ':');
      if (colon < fieldStart + 1 || !isLcAlpha(text[fieldStart])) {
        return false;
      }
      for (int i = fieldStart + 1; i < colon; i++) {
        if (!isLcAlphaNum(text[i])) {
          return false;
        }
      }
      for (int i = colon + 1; i < fieldEnd; i++) {
        byte c = text[i];
        if (!(isLcAlphaNum(c) || (c >= 'A' && c <= 'Z') || c == '.' || c == '_' || c == '-')) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean isLcAlpha(byte c) {
    return c >= 'a' && c <= 'z';
  }

  private static boolean isLcAlphaNum(byte c) {
    return isLcAlpha(c) || (c >= '0' && c <= '9');
  }

  private static int indexOf(byte[] text, int start, int end, byte wanted) {
    for (int i = start; i < end; i++) {
      if (text[i] == wanted) {
        return i;
      }
    }
    return -1;
  }

  private static int trimStart(byte[] text, int start, int end) {
    while (start < end && (text[start] == ' ' || text[start] == '\t')) {
      start++;
    }
    return start;
  }

  private static int trimEnd(byte[] text, int start, int end) {
    while (end > start && (text[end - 1] == ' ' || text[end - 1] == '\t')) {
      end--;
    }
    return end;
  }
}
