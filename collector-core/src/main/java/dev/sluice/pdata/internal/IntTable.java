package dev.sluice.pdata.internal;

import dev.sluice.pdata.MalformedOtlpException;

/**
 * A growable table of int rows with a fixed number of columns, stored row after row in chunks of
 * {@code initialRows} rows. The indexer keeps one per kind of row and reuses it (and its chunks)
 * between requests; {@link #copy()} gives the exact-size array an {@link OtlpIndex} keeps.
 *
 * <p>Growing adds a chunk and copies nothing, so a table that grows to n rows has allocated n rows
 * (plus less than one chunk), not the 2n to 4n of a doubling array; every new chunk is first
 * checked against the {@link IndexBudget}.
 */
public final class IntTable {
  private final int columns;
  private final int rowsPerChunk;
  private final IndexBudget budget;
  private int[][] chunks = new int[4][];
  private int chunkCount;
  private int chunk;

  /** The current chunk: {@link #addRow()} returns offsets into it. */
  public int[] data;

  private int used;
  public int rows;

  public IntTable(int columns, int initialRows, IndexBudget budget) {
    this.columns = columns;
    this.rowsPerChunk = Math.max(1, initialRows);
    this.budget = budget;
    chunks[0] = new int[columns * rowsPerChunk];
    chunkCount = 1;
    data = chunks[0];
    budget.register(this);
  }

  public void clear() {
    rows = 0;
    chunk = 0;
    used = 0;
    data = chunks[0];
  }

  public int rows() {
    return rows;
  }

  long usedBytes() {
    return 4L * columns * rows;
  }

  /** Appends a row and returns the offset of its first column in {@link #data}. */
  public int addRow() throws MalformedOtlpException {
    int at = used;
    if (at + columns > data.length) {
      nextChunk();
      at = 0;
    }
    used = at + columns;
    rows++;
    return at;
  }

  private void nextChunk() throws MalformedOtlpException {
    budget.check();
    chunk++;
    if (chunk == chunkCount) {
      if (chunkCount == chunks.length) {
        chunks = java.util.Arrays.copyOf(chunks, chunkCount * 2);
      }
      chunks[chunkCount++] = new int[columns * rowsPerChunk];
    }
    data = chunks[chunk];
  }

  public int get(int row, int column) {
    return chunks[row / rowsPerChunk][(row % rowsPerChunk) * columns + column];
  }

  public int[] copy() {
    int[] copy = new int[rows * columns];
    int chunkInts = columns * rowsPerChunk;
    for (int c = 0, at = 0; at < copy.length; c++, at += chunkInts) {
      System.arraycopy(chunks[c], 0, copy, at, Math.min(chunkInts, copy.length - at));
    }
    return copy;
  }
}
