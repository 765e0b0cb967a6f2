package dev.sluice.connector.spanmetrics;

import java.util.Arrays;
import java.util.function.Predicate;

/**
 * The series of one metric of one resource, found by the hash and bytes of their keys (open
 * addressing, linear probing), kept in the order they were made. At most {@code limit} series (0:
 * no limit) are counted into at a time; a key beyond that counts into the one overflow series, as
 * the Collector's connector does with its {@code aggregation_cardinality_limit}. A cumulative
 * metric counts every series it holds against the limit; a delta metric those counted into since
 * its last flush, since the Collector starts each delta interval empty.
 */
final class SeriesTable {
  /** How a table makes its series. */
  record Shape(int explicitBuckets, int exponentialMaxSize, int maxExemplars) {}

  private final Shape shape;
  private final int limit;
  private final boolean delta;

  private Series[] slots = new Series[16];
  private Series[] ordered = new Series[8];
  private int size;
  private Series overflow;

  /** Series other than the overflow one that count against the limit. */
  private int limited;

  SeriesTable(Shape shape, int limit, boolean delta) {
    this.shape = shape;
    this.limit = limit;
    this.delta = delta;
  }

  /**
   * The series to count a span into: the one whose key is {@code key[from, length)}, made if there
   * is none and the limit allows, else the overflow series.
   */
  Series series(KeyBuffer key, int from, long hash, long startUnixNanos, long nowNanos) {
    int mask = slots.length - 1;
    int i = (int) hash & mask;
    Series found;
    while ((found = slots[i]) != null) {
      if (found.hash == hash && key.equalsRange(from, found.key)) {
        if (delta && !found.touched) {
          if (limit > 0 && limited >= limit) {
            return overflow(startUnixNanos, nowNanos);
          }
          limited++;
          found.touched = true;
        }
        found.lastSeenNanos = nowNanos;
        return found;
      }
      i = (i + 1) & mask;
    }
    if (limit > 0 && limited >= limit) {
      return overflow(startUnixNanos, nowNanos);
    }
    Series made = make(key.copy(from), hash, startUnixNanos, nowNanos);
    limited++;
    insert(made);
    return made;
  }

  private Series overflow(long startUnixNanos, long nowNanos) {
    if (overflow == null) {
      overflow = make(Series.OVERFLOW_KEY, 0, startUnixNanos, nowNanos);
      append(overflow);
    }
    overflow.touched = true;
    overflow.lastSeenNanos = nowNanos;
    return overflow;
  }

  private Series make(byte[] key, long hash, long startUnixNanos, long nowNanos) {
    Series series =
        new Series(
            key,
            hash,
            shape.explicitBuckets(),
            shape.exponentialMaxSize(),
            shape.maxExemplars(),
            startUnixNanos);
    series.touched = true;
    series.lastSeenNanos = nowNanos;
    return series;
  }

  private void insert(Series series) {
    append(series);
    if (2 * size > slots.length) {
      rehash(slots.length * 2);
    } else {
      place(series);
    }
  }

  private void append(Series series) {
    if (size == ordered.length) {
      ordered = Arrays.copyOf(ordered, size * 2);
    }
    ordered[size++] = series;
  }

  private void place(Series series) {
    int mask = slots.length - 1;
    int i = (int) series.hash & mask;
    while (slots[i] != null) {
      i = (i + 1) & mask;
    }
    slots[i] = series;
  }

  private void rehash(int capacity) {
    slots = new Series[capacity];
    for (int i = 0; i < size; i++) {
      if (!ordered[i].overflow()) {
        place(ordered[i]);
      }
    }
  }

  int size() {
    return size;
  }

  /** Series {@code i}, in the order they were made (the overflow series among them). */
  Series get(int i) {
    return ordered[i];
  }

  /** Forgets the series {@code drop} accepts; keeps the order of the others. */
  void removeIf(Predicate<Series> drop) {
    int kept = 0;
    for (int i = 0; i < size; i++) {
      Series series = ordered[i];
      if (drop.test(series)) {
        if (series == overflow) {
          overflow = null;
        } else if (!delta || series.touched) {
          limited--;
        }
      } else {
        ordered[kept++] = series;
      }
    }
    Arrays.fill(ordered, kept, size, null);
    size = kept;
    int capacity = 16;
    while (capacity < 2 * size) {
      capacity *= 2;
    }
    rehash(capacity);
  }

  /** A delta flush was handed on: no series has been counted into since. */
  void startInterval() {
    for (int i = 0; i < size; i++) {
      ordered[i].touched = false;
    }
    limited = 0;
  }
}
