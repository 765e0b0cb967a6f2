package dev.sluice.pdata.internal;

import dev.sluice.pdata.MalformedOtlpException;

/** A growable list of longs, reused between requests; grows by chunks, like {@link IntTable}. */
public final class LongList {
  private static final int CHUNK = 64;

  private final IndexBudget budget;
  private long[][] chunks = new long[4][];
  private int chunkCount;
  private int size;

  public LongList(IndexBudget budget) {
    this.budget = budget;
    chunks[0] = new long[CHUNK];
    chunkCount = 1;
    budget.register(this);
  }

  public void clear() {
    size = 0;
  }

  long usedBytes() {
    return 8L * size;
  }

  public void add(long value) throws MalformedOtlpException {
    int chunk = size / CHUNK;
    if (chunk == chunkCount) {
      budget.check();
      if (chunkCount == chunks.length) {
        chunks = java.util.Arrays.copyOf(chunks, chunkCount * 2);
      }
      chunks[chunkCount++] = new long[CHUNK];
    }
    chunks[chunk][size % CHUNK] = value;
    size++;
  }

  public long[] copy() {
    long[] copy = new long[size];
    for (int c = 0, at = 0; at < size; c++, at += CHUNK) {
      System.arraycopy(chunks[c], 0, copy, at, Math.min(CHUNK, size - at));
    }
    return copy;
  }
}
