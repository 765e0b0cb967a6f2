package dev.sluice.core.otlp;

import java.util.Arrays;

/**
 * A growable table of int rows with a fixed number of columns, stored row after row in one array.
 * The indexer keeps one per kind of row and reuses it between requests; {@link #copy()} gives the
 * exact-size array an {@link OtlpIndex} keeps.
 */
final class IntTable {
  private final int columns;
  int[] data;
  private int rows;

  IntTable(int columns, int initialRows) {
    this.columns = columns;
    this.data = new int[columns * Math.max(1, initialRows)];
  }

  void clear() {
    rows = 0;
  }

  int rows() {
    return rows;
  }

  /** Appends a row and returns the array offset of its first column. */
  int addRow() {
    int base = rows * columns;
    if (base + columns > data.length) {
      data = Arrays.copyOf(data, Math.max(base + columns, data.length * 2));
    }
    rows++;
    return base;
  }

  int get(int row, int column) {
    return data[row * columns + column];
  }

  int[] copy() {
    return Arrays.copyOf(data, rows * columns);
  }
}
