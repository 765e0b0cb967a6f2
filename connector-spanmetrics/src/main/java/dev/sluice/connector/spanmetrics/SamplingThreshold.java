package dev.sluice.connector.spanmetrics;

import dev.sluice.pdata.view.TextView;
import java.util.SplittableRandom;

/**
 * How many spans a sampled span stands for, from the OpenTelemetry sampling threshold in its W3C
 * {@code tracestate} ({@code ot=th:<hex>}, OTEP 235): the threshold {@code T} (the hex digits
 * padded to 56 bits) keeps spans with probability {@code (2^56 - T) / 2^56}, so a kept span counts
 * as the inverse. A fraction is rounded up or down at random, weighted so that the counts are right
 * on average, as the Collector's connector does. A span without a threshold counts as one.
 *
 * <p>Reads the tracestate's bytes in place; not thread-safe (one per aggregator).
 */
final class SamplingThreshold {
  static final int MAX_DIGITS = 14;
  private static final double MAX_ADJUSTED_COUNT = 0x1p56;

  private final SplittableRandom random;

  SamplingThreshold(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /** The adjusted count {@code traceState} gives, or 0 when it carries no valid threshold. */
  static double adjustedCount(TextView traceState) {
    int end = traceState.length();
    int p = 0;
    double count = 0;
    while (p < end) {
      int memberEnd = indexOf(traceState, (byte) ',', p, end);
      int from = skipSpaces(traceState, p, memberEnd);
      if (memberEnd - from > 3
          && traceState.byteAt(from) == 'o'
          && traceState.byteAt(from + 1) == 't'
          && traceState.byteAt(from + 2) == '=') {
        // A later ot member replaces an earlier one.
        count = otValue(traceState, from + 3, trimEnd(traceState, from + 3, memberEnd));
      }
      p = memberEnd + 1;
    }
    return count;
  }

  /** The adjusted count of an {@code ot} value's {@code th} field; 0 when it has none. */
  private static double otValue(TextView text, int from, int end) {
    double count = 0;
    int p = from;
    while (p < end) {
      int fieldEnd = indexOf(text, (byte) ';', p, end);
      if (fieldEnd - p > 3
          && text.byteAt(p) == 't'
          && text.byteAt(p + 1) == 'h'
          && text.byteAt(p + 2) == ':') {
        long threshold = threshold(text, p + 3, fieldEnd);
        if (threshold < 0) {
          return 0;
        }
        count = 1.0 / ((MAX_ADJUSTED_COUNT - threshold) / MAX_ADJUSTED_COUNT);
      }
      p = fieldEnd + 1;
    }
    return count;
  }

  /** The 56-bit threshold of 1 to 14 lowercase hex digits; -1 when they are not that. */
  private static long threshold(TextView text, int from, int end) {
    int digits = end - from;
    if (digits < 1 || digits > MAX_DIGITS) {
      return -1;
    }
    long value = 0;
    for (int i = from; i < end; i++) {
      int c = text.byteAt(i);
      int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (digit < 0) {
        return -1;
      }
      value = (value << 4) | digit;
    }
    return value << (4 * (MAX_DIGITS - digits));
  }

  /** {@code count} as a whole number: its fraction adds one with that probability. */
  long round(double count) {
    double floor = Math.floor(count);
    double fraction = count - floor;
    long whole = (long) floor;
    return fraction > 0 && random.nextDouble() < fraction ? whole + 1 : whole;
  }

  private static int indexOf(TextView text, byte b, int from, int end) {
    for (int i = from; i < end; i++) {
      if (text.byteAt(i) == b) {
        return i;
      }
    }
    return end;
  }

  private static int skipSpaces(TextView text, int from, int end) {
    int p = from;
    while (p < end && (text.byteAt(p) == ' ' || text.byteAt(p) == '\t')) {
      p++;
    }
    return p;
  }

  private static int trimEnd(TextView text, int from, int end) {
    int p = end;
    while (p > from && (text.byteAt(p - 1) == ' ' || text.byteAt(p - 1) == '\t')) {
      p--;
    }
    return p;
  }
}
