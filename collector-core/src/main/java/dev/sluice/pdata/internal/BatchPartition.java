package dev.sluice.pdata.internal;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.PartKey;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;

/**
 * One run of {@link Batch#partitionInto}: walks the units of a batch in order, asks the key for
 * each, and adds every run of consecutive units of one part to that part as one slice. A slice
 * whose units all go to one part is added as it is; only runs that cut a slice make new slices.
 * Units an edit dropped are skipped (the key is not asked about them); they stay marked in the
 * parts' slices, which see the same overlay.
 *
 * <p>Reads the source batch only (its slice array and the slices' requests and overlays), so
 * several threads may split the same batch at once, each with its own instance.
 */
public final class BatchPartition {
  /** No run is open. */
  private static final int NO_PART = -1;

  /** Where blocks without units go: the key is not asked about them. */
  private static final int EMPTY_BLOCK_PART = 0;

  private final Batch[] parts;
  private final PartKey key;
  private final BatchItem item = new BatchItem(null);

  // The open run: its part and its first position in the current slice.
  private int runPart = NO_PART;
  private int runItem;
  private int runPoint;

  public BatchPartition(Batch[] parts, PartKey key) {
    this.parts = parts;
    this.key = key;
  }

  public void partition(Batch source) {
    try {
      for (int i = 0; i < source.sliceCount(); i++) {
        partition(source.slice(i));
      }
    } finally {
      item.forget();
    }
  }

  public void partition(Slice slice) {
    runPart = NO_PART;
    if (slice.scope() < 0 || slice.units() == 0) {
      parts[EMPTY_BLOCK_PART].append(slice);
      return;
    }
    OtlpIndex index = slice.index();
    if (index.signal() != Signal.METRICS) {
      for (int i = slice.itemFrom(); i < slice.itemTo(); i++) {
        if (slice.dropped(i)) {
          continue;
        }
        item.set(slice, i, -1, i);
        at(slice, askKey(), i, 0);
      }
    } else {
      int lastMetric = slice.pointTo() > 0 ? slice.itemTo() : slice.itemTo() - 1;
      for (int m = slice.itemFrom(); m <= lastMetric; m++) {
        int count = index.dataPointCount(m);
        if (count == 0) {
          // Only a whole metric can have no points: it goes where empty blocks go, unless an edit
          // dropped it.
          if (!BatchView.visible(slice, m, 0, 0)) {
            continue;
          }
          at(slice, EMPTY_BLOCK_PART, m, 0);
          continue;
        }
        int from = m == slice.itemFrom() ? slice.pointFrom() : 0;
        int to = m == slice.itemTo() ? slice.pointTo() : count;
        int firstRow = index.metric(m, OtlpIndex.M_DP_FIRST);
        for (int p = from; p < to; p++) {
          if (slice.dropped(firstRow + p)) {
            continue;
          }
          item.set(slice, m, p, firstRow + p);
          at(slice, askKey(), m, p);
        }
      }
    }
    close(slice, slice.itemTo(), slice.pointTo());
  }

  private int askKey() {
    int part = key.partOf(item);
    if (part < 0 || part >= parts.length) {
      throw new IllegalArgumentException(
          "the part key gave " + part + " for " + parts.length + " parts");
    }
    return part;
  }

  /** The unit at {@code (itemNumber, point)} goes to {@code part}: it extends or starts a run. */
  private void at(Slice slice, int part, int itemNumber, int point) {
    if (part == runPart) {
      return;
    }
    close(slice, itemNumber, point);
    runPart = part;
    runItem = itemNumber;
    runPoint = point;
  }

  /** Adds the open run, which ends just before {@code (toItem, toPoint)}, to its part. */
  private void close(Slice slice, int toItem, int toPoint) {
    if (runPart == NO_PART) {
      return;
    }
    Batch part = parts[runPart];
    if (runItem == slice.itemFrom()
        && runPoint == slice.pointFrom()
        && toItem == slice.itemTo()
        && toPoint == slice.pointTo()) {
      part.append(slice);
    } else {
      part.append(slice.range(runItem, runPoint, toItem, toPoint));
    }
    runPart = NO_PART;
  }
}
