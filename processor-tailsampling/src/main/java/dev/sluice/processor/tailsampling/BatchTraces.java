package dev.sluice.processor.tailsampling;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.view.SpanView;
import java.util.Arrays;

/**
 * The traces of one incoming batch: each distinct trace ID with its span count, its spans' bytes
 * and whether its root span is among them, and for each span (in visit order) the index of its
 * trace, which is the part it goes to when the batch is partitioned ({@link #part}). Reused batch
 * after batch: after the first batches it allocates nothing.
 *
 * <p>Not thread-safe: the processor uses it under its lock.
 */
final class BatchTraces {
  // Distinct traces, numbered from 1 (part 0 takes the blocks without spans).
  long[] highs = new long[64];
  long[] lows = new long[64];
  long[] spans = new long[64];
  long[] bytes = new long[64];
  boolean[] roots = new boolean[64];
  int count;

  // trace index + 1 by slot of the ID's hash; 0 is empty.
  private int[] index = new int[128];
  // the part of each span, in visit order, and the next span partitionInto asks about
  private int[] partOfSpan = new int[1024];
  private int spanCount;
  private int asked;

  private final ItemVisitor read = this::read;

  /** Reads the trace IDs of {@code batch}'s spans. */
  void read(Batch batch) {
    count = 0;
    spanCount = 0;
    asked = 0;
    Arrays.fill(index, 0);
    batch.visit(read);
  }

  private void read(BatchItem item) {
    SpanView span = item.span();
    long high = span.traceIdHigh();
    long low = span.traceIdLow();
    int trace = find(high, low);
    spans[trace]++;
    bytes[trace] += span.encodedLength();
    if (!span.hasParentSpanId()) {
      roots[trace] = true;
    }
    if (spanCount == partOfSpan.length) {
      partOfSpan = Arrays.copyOf(partOfSpan, spanCount * 2);
    }
    partOfSpan[spanCount++] = trace;
  }

  /** The part of the next span the partition asks about. */
  int part(BatchItem item) {
    return partOfSpan[asked++];
  }

  private int find(long high, long low) {
    int mask = index.length - 1;
    int i = slot(high, low, mask);
    while (index[i] != 0) {
      int trace = index[i];
      if (highs[trace] == high && lows[trace] == low) {
        return trace;
      }
      i = (i + 1) & mask;
    }
    int trace = ++count;
    if (trace == highs.length) {
      int length = highs.length * 2;
      highs = Arrays.copyOf(highs, length);
      lows = Arrays.copyOf(lows, length);
      spans = Arrays.copyOf(spans, length);
      bytes = Arrays.copyOf(bytes, length);
      roots = Arrays.copyOf(roots, length);
    }
    highs[trace] = high;
    lows[trace] = low;
    spans[trace] = 0;
    bytes[trace] = 0;
    roots[trace] = false;
    index[i] = trace;
    if (2 * count > index.length) {
      rehash();
    }
    return trace;
  }

  private void rehash() {
    int[] table = new int[index.length * 2];
    int mask = table.length - 1;
    for (int trace = 1; trace <= count; trace++) {
      int i = slot(highs[trace], lows[trace], mask);
      while (table[i] != 0) {
        i = (i + 1) & mask;
      }
      table[i] = trace;
    }
    index = table;
  }

  private static int slot(long high, long low, int mask) {
    long h = (high ^ Long.rotateLeft(low, 29)) * 0x9E3779B97F4A7C15L;
    return (int) (h >>> 32) & mask;
  }
}
