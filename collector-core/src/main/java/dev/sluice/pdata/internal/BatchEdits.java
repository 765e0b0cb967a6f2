package dev.sluice.pdata.internal;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a visit of a batch: walks its units (skipping those earlier visits dropped), marks the units
 * the visitor drops in the overlay this visit writes for their request, builds the new slice list
 * (every slice whole, less those whose every unit is now dropped) in a spare array, and at the end
 * points every slice of an edited request at that one overlay, counting its dropped units anew. One
 * per thread, reused from visit to visit and batch to batch, so a visit allocates only the overlays
 * of requests it first edits, one slice for each slice of an edited request, and a larger slice
 * array when the batch's own is too small; nothing per dropped unit.
 */
public final class BatchEdits {
  /** Visit numbers, unique in the process: a header replaced "in this visit" carries one. */
  private static final AtomicInteger VISITS = new AtomicInteger();

  private static final int MIN_SLICES = 8;

  /**
   * A spare array past this many slices is given back after the visit, so one huge batch does not
   * stay.
   */
  private static final int MAX_RETAINED_SLICES = 1 << 16;

  private static final ThreadLocal<BatchEdits> PER_THREAD =
      ThreadLocal.withInitial(BatchEdits::new);

  private Batch batch;
  private boolean busy;
  private final BatchItem item;
  private Slice[] spare = new Slice[MIN_SLICES];
  private int outCount;

  // The overlay of each request edited in this visit (usually one or a few: searched in order).
  private OtlpIndex[] editedIndexes = new OtlpIndex[4];
  private Overlay[] editedOverlays = new Overlay[4];
  private int editedCount;
  public int stamp;

  public BatchEdits() {
    this.item = new BatchItem(this);
  }

  /**
   * Visits {@code batch} with this thread's instance, or with a new one when a visitor visits
   * another batch from inside a visit.
   */
  public static long run(Batch batch, ItemVisitor visitor, boolean metrics) {
    return run(batch, visitor, metrics, false);
  }

  /**
   * Visits one item of each slice of {@code batch} (the first it still holds; for metrics, the
   * first metric), for a visitor that edits resource and scope headers only: every item of a slice
   * shares them. The item cannot be dropped or replaced.
   */
  public static void runHeaders(Batch batch, ItemVisitor visitor) {
    run(batch, visitor, batch.signal() == Signal.METRICS, true);
  }

  public static long run(Batch batch, ItemVisitor visitor, boolean metrics, boolean headers) {
    BatchEdits edits = PER_THREAD.get();
    if (edits.busy) {
      edits = new BatchEdits();
    }
    edits.busy = true;
    edits.batch = batch;
    edits.item.headersOnly = headers;
    try {
      return edits.visit(visitor, metrics);
    } finally {
      edits.item.headersOnly = false;
      edits.batch = null;
      edits.busy = false;
    }
  }

  private long visit(ItemVisitor visitor, boolean metrics) {
    stamp = VISITS.incrementAndGet();
    editedCount = 0;
    outCount = 0;
    long unitsBefore = batch.unitCount();
    Slice[] current = batch.slicesArray();
    int tail = batch.tailPosition();
    int i = batch.headPosition();
    try {
      while (i < tail) {
        Slice slice = current[i++];
        if (metrics) {
          visitMetricSlice(slice, visitor);
        } else {
          visitSlice(slice, visitor);
        }
      }
    } finally {
      // A visitor that throws leaves the slices it did not reach as they were.
      while (i < tail) {
        emit(current[i++]);
      }
      finish(current);
    }
    return unitsBefore - batch.unitCount();
  }

  private void visitSlice(Slice slice, ItemVisitor visitor) {
    if (slice.scope() < 0 || slice.units() == 0) {
      emit(slice);
      return;
    }
    OtlpIndex index = slice.index();
    Overlay own = null;
    // Whether the visit dropped a unit of the slice, and whether it kept one (or a metric without
    // data points, which a unit visit neither shows nor drops).
    boolean dropped = false;
    boolean kept = false;
    boolean completed = false;
    try {
      if (index.signal() != Signal.METRICS) {
        for (int i = slice.itemFrom(); i < slice.itemTo(); i++) {
          if (slice.dropped(i)) {
            continue;
          }
          item.set(slice, i, -1, i);
          visitor.visit(item);
          item.endCall();
          if (item.dropped) {
            own = own != null ? own : ownOverlay(slice);
            own.dropUnit(i, -1);
            dropped = true;
          } else {
            kept = true;
            if (item.headersOnly) {
              break; // the slice's other items share the headers just shown
            }
          }
        }
      } else {
        int lastMetric = slice.pointTo() > 0 ? slice.itemTo() : slice.itemTo() - 1;
        for (int m = slice.itemFrom(); m <= lastMetric; m++) {
          if (index.dataPointCount(m) == 0) {
            kept |= !metricDropped(slice, m);
            continue;
          }
          int from = m == slice.itemFrom() ? slice.pointFrom() : 0;
          int to = m == slice.itemTo() ? slice.pointTo() : index.dataPointCount(m);
          int firstRow = index.metric(m, OtlpIndex.M_DP_FIRST);
          for (int p = from; p < to; p++) {
            int unit = firstRow + p;
            if (slice.dropped(unit)) {
              continue;
            }
            item.set(slice, m, p, unit);
            visitor.visit(item);
            item.endCall();
            if (item.dropped) {
              own = own != null ? own : ownOverlay(slice);
              own.dropUnit(unit, m);
              dropped = true;
            } else {
              kept = true;
            }
          }
        }
      }
      completed = true;
    } finally {
      keepUnlessEmptied(slice, dropped && completed && !kept);
    }
  }

  /**
   * Shows each metric (or metric part) of the slice, those without data points included, but not
   * those an earlier visit dropped.
   */
  private void visitMetricSlice(Slice slice, ItemVisitor visitor) {
    if (slice.scope() < 0
        || (slice.itemFrom() == slice.itemTo() && slice.pointTo() <= slice.pointFrom())) {
      emit(slice);
      return;
    }
    OtlpIndex index = slice.index();
    Overlay own = null;
    boolean dropped = false;
    boolean kept = false;
    boolean completed = false;
    try {
      int lastMetric = slice.pointTo() > 0 ? slice.itemTo() : slice.itemTo() - 1;
      for (int m = slice.itemFrom(); m <= lastMetric; m++) {
        int from = m == slice.itemFrom() ? slice.pointFrom() : 0;
        int to = m == slice.itemTo() ? slice.pointTo() : index.dataPointCount(m);
        int firstRow = index.metric(m, OtlpIndex.M_DP_FIRST);
        if (to > from
            ? slice.droppedUnits() > 0
                && slice.overlay().droppedIn(firstRow + from, firstRow + to) == to - from
            : metricDropped(slice, m)) {
          continue;
        }
        item.setMetric(slice, m, from, to);
        visitor.visit(item);
        if (!item.dropped) {
          kept = true;
          if (item.headersOnly) {
            break; // the slice's other metrics share the headers just shown
          }
          continue;
        }
        own = own != null ? own : ownOverlay(slice);
        if (to == from) {
          own.dropMetric(m);
        }
        for (int p = from; p < to; p++) {
          own.dropUnit(firstRow + p, m);
        }
        dropped = true;
      }
      completed = true;
    } finally {
      keepUnlessEmptied(slice, dropped && completed && !kept);
    }
  }

  private static boolean metricDropped(Slice slice, int metric) {
    return slice.overlay() != null && slice.overlay().metricDropped(metric);
  }

  /**
   * Moves the visited slice to the new list, or lets it go when the visit dropped everything it
   * held: a block left without items is not written. A slice kept with drops is counted anew (and
   * pointed at this visit's overlay) when the visit ends.
   */
  private void keepUnlessEmptied(Slice slice, boolean emptied) {
    if (emptied) {
      slice.release();
    } else {
      emit(slice);
    }
  }

  /** Emits a slice, whose reference moves to the new list. */
  private void emit(Slice slice) {
    if (outCount == spare.length) {
      spare = Arrays.copyOf(spare, spare.length * 2);
    }
    spare[outCount++] = slice;
  }

  private void finish(Slice[] old) {
    long units = 0;
    for (int k = 0; k < outCount; k++) {
      Slice slice = spare[k];
      Overlay own = existingOwn(slice.index());
      if (own != null && slice.overlay() != own) {
        if (slice.overlay() != null) {
          own.absorb(slice.overlay(), slice);
        }
        Slice repointed = slice.withOverlay(own);
        repointed.retain();
        slice.release();
        spare[k] = repointed;
        slice = repointed;
      } else if (own != null) {
        // The same references; only the count of units this visit dropped changes.
        slice = slice.recounted();
        spare[k] = slice;
      }
      units += slice.units();
    }
    for (int k = 0; k < editedCount; k++) {
      editedOverlays[k].endVisit();
      editedOverlays[k].discardIfUnused();
      editedOverlays[k] = null;
      editedIndexes[k] = null;
    }
    editedCount = 0;
    item.forget();
    // The new list goes into the batch's own array when it fits, else into one of its size.
    int oldEnd = batch.tailPosition();
    Slice[] target = outCount <= old.length ? old : new Slice[outCount];
    System.arraycopy(spare, 0, target, 0, outCount);
    if (target == old && oldEnd > outCount) {
      Arrays.fill(old, outCount, oldEnd, null);
    }
    batch.replaceSlices(target, outCount, units);
    Arrays.fill(spare, 0, outCount, null);
    if (spare.length > MAX_RETAINED_SLICES) {
      spare = new Slice[MIN_SLICES];
    }
    outCount = 0;
  }

  /** The overlay this visit writes for the request, or null when it has not edited it yet. */
  public Overlay existingOwn(OtlpIndex index) {
    for (int k = 0; k < editedCount; k++) {
      if (editedIndexes[k] == index) {
        return editedOverlays[k];
      }
    }
    return null;
  }

  /**
   * The overlay this visit writes for the slice's request: the one the batch already owns for it,
   * or a new one (a copy is made at the end of what the slices' earlier overlays held).
   */
  public Overlay ownOverlay(Slice slice) {
    Overlay own = existingOwn(slice.index());
    if (own != null) {
      return own;
    }
    Overlay seen = slice.overlay();
    own = seen != null && seen.owner == batch ? seen : new Overlay(slice.index(), batch);
    if (editedCount == editedIndexes.length) {
      editedIndexes = Arrays.copyOf(editedIndexes, editedCount * 2);
      editedOverlays = Arrays.copyOf(editedOverlays, editedCount * 2);
    }
    editedIndexes[editedCount] = slice.index();
    editedOverlays[editedCount] = own;
    editedCount++;
    return own;
  }
}
