package dev.sluice.processor.tailsampling;

/**
 * The traces held, by trace ID: open addressing over the ID's two halves, so that a lookup makes no
 * key object. Removal shifts the entries of the probe run back, so no tombstones pile up. Grows to
 * keep the load at most a half; never shrinks (its size follows {@code num_traces}).
 *
 * <p>Not thread-safe: the processor uses it under its lock.
 */
final class TraceTable {
  private TraceData[] slots;
  private int size;

  TraceTable(int expected) {
    int capacity = 16;
    while (capacity < 2L * expected && capacity < (1 << 30)) {
      capacity <<= 1;
    }
    slots = new TraceData[capacity];
  }

  int size() {
    return size;
  }

  TraceData get(long high, long low) {
    TraceData[] table = slots;
    int mask = table.length - 1;
    for (int i = slot(high, low, mask); ; i = (i + 1) & mask) {
      TraceData found = table[i];
      if (found == null || (found.traceIdHigh == high && found.traceIdLow == low)) {
        return found;
      }
    }
  }

  /** Adds a trace whose ID is not held yet. */
  void add(TraceData trace) {
    if (2 * (size + 1) > slots.length) {
      grow();
    }
    place(slots, trace);
    size++;
  }

  /** Removes {@code trace}; false when it is not held. */
  boolean remove(TraceData trace) {
    TraceData[] table = slots;
    int mask = table.length - 1;
    int i = slot(trace.traceIdHigh, trace.traceIdLow, mask);
    while (table[i] != trace) {
      if (table[i] == null) {
        return false;
      }
      i = (i + 1) & mask;
    }
    table[i] = null;
    size--;
    // Moves back the entries after the hole whose home is not between the hole and them.
    int hole = i;
    for (int j = (i + 1) & mask; table[j] != null; j = (j + 1) & mask) {
      int home = slot(table[j].traceIdHigh, table[j].traceIdLow, mask);
      boolean reachable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (reachable) {
        table[hole] = table[j];
        table[j] = null;
        hole = j;
      }
    }
    return true;
  }

  private void grow() {
    TraceData[] old = slots;
    TraceData[] table = new TraceData[old.length * 2];
    for (TraceData trace : old) {
      if (trace != null) {
        place(table, trace);
      }
    }
    slots = table;
  }

  private static void place(TraceData[] table, TraceData trace) {
    int mask = table.length - 1;
    int i = slot(trace.traceIdHigh, trace.traceIdLow, mask);
    while (table[i] != null) {
      i = (i + 1) & mask;
    }
    table[i] = trace;
  }

  private static int slot(long high, long low, int mask) {
    // Trace IDs are random; a multiply and a shift spread IDs that are not (counters in tests).
    long h = (high ^ Long.rotateLeft(low, 29)) * 0x9E3779B97F4A7C15L;
    return (int) (h >>> 32) & mask;
  }
}
