package dev.sluice.core.otlp;

import java.util.Arrays;

/** A growable list of longs, reused between requests. */
final class LongList {
  private long[] values = new long[16];
  private int size;

  void clear() {
    size = 0;
  }

  void add(long value) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = value;
  }

  long[] copy() {
    return Arrays.copyOf(values, size);
  }
}
