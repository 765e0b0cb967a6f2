package dev.sluice.exporter.prometheusremotewrite;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Bucket bounds ({@code le}) and quantiles ({@code quantile}) as the Collector writes them, Go's
 * {@code strconv.FormatFloat(v, 'f', -1, 64)}: the shortest digits that read back as the same
 * double, never in exponent form ({@code 0.0000001}, {@code 1000000000000000000000}), and {@code
 * +Inf}, {@code -Inf}, {@code NaN}. Cached by the double's bits, since every point of a histogram
 * repeats its bounds. Bounded like {@link NameCache}; owned by one thread.
 */
final class FloatText {
  static final int MAX_ENTRIES = 1024;
  private static final int SLOTS = MAX_ENTRIES * 2;
  private static final byte[] POSITIVE_INFINITY = {'+', 'I', 'n', 'f'};

  private final long[] bits = new long[SLOTS];
  private final byte[][] texts = new byte[SLOTS][];
  private int size;

  byte[] get(double value) {
    long key = Double.doubleToRawLongBits(value);
    int slot = slot(key);
    while (texts[slot] != null) {
      if (bits[slot] == key) {
        return texts[slot];
      }
      slot = (slot + 1) & (SLOTS - 1);
    }
    if (size == MAX_ENTRIES) {
      Arrays.fill(texts, null);
      size = 0;
      slot = slot(key);
    }
    byte[] text = format(value).getBytes(StandardCharsets.US_ASCII);
    bits[slot] = key;
    texts[slot] = text;
    size++;
    return text;
  }

  static byte[] positiveInfinity() {
    return POSITIVE_INFINITY;
  }

  static String format(double value) {
    if (Double.isNaN(value)) {
      return "NaN";
    }
    if (Double.isInfinite(value)) {
      return value > 0 ? "+Inf" : "-Inf";
    }
    if (value == 0) {
      return 1 / value < 0 ? "-0" : "0";
    }
    return new BigDecimal(Double.toString(value)).stripTrailingZeros().toPlainString();
  }

  private static int slot(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h >>> 40) & (SLOTS - 1);
  }
}
