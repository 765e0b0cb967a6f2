package dev.sluice.pdata.otlp;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a visit of a batch: walks its units, builds the new slice list (kept runs of each slice, cut
 * where items were dropped) in a spare array, and at the end points every slice of an edited
 * request at the one overlay this visit wrote for that request. One per thread, reused from visit
 * to visit and batch to batch, so a visit allocates only the slices it cuts, the overlays of
 * requests it first edits, and a larger slice array when the batch's own is too small.
 */
final class BatchEdits {
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
  int stamp;

  private BatchEdits() {
    this.item = new BatchItem(this);
  }

  /**
   * Visits {@code batch} with this thread's instance, or with a new one when a visitor visits
   * another batch from inside a visit.
   */
  static long run(Batch batch, ItemVisitor visitor, boolean metrics) {
    BatchEdits edits = PER_THREAD.get();
    if (edits.busy) {
      edits = new BatchEdits();
    }
    edits.busy = true;
    edits.batch = batch;
    try {
      return edits.visit(visitor, metrics);
    } finally {
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
    // Start of the run of kept units not yet emitted.
    int runItem = slice.itemFrom();
    int runPoint = slice.pointFrom();
    boolean cut = false;
    try {
      if (index.signal() != Signal.METRICS) {
        for (int i = slice.itemFrom(); i < slice.itemTo(); i++) {
          item.set(slice, i, -1, i);
          visitor.visit(item);
          if (item.dropped) {
            emitRange(slice, runItem, 0, i, 0);
            runItem = i + 1;
            cut = true;
          }
        }
      } else {
        int lastMetric = slice.pointTo() > 0 ? slice.itemTo() : slice.itemTo() - 1;
        for (int m = slice.itemFrom(); m <= lastMetric; m++) {
          int from = m == slice.itemFrom() ? slice.pointFrom() : 0;
          int to = m == slice.itemTo() ? slice.pointTo() : index.dataPointCount(m);
          int firstRow = index.metric(m, OtlpIndex.M_DP_FIRST);
          for (int p = from; p < to; p++) {
            item.set(slice, m, p, firstRow + p);
            visitor.visit(item);
            if (item.dropped) {
              emitRange(slice, runItem, runPoint, m, p);
              if (p + 1 < index.dataPointCount(m)) {
                runItem = m;
                runPoint = p + 1;
              } else {
                runItem = m + 1;
                runPoint = 0;
              }
              cut = true;
            }
          }
        }
      }
    } finally {
      if (cut) {
        emitRange(slice, runItem, runPoint, slice.itemTo(), slice.pointTo());
        slice.release();
      } else {
        emit(slice);
      }
    }
  }

  /** Shows each metric (or metric part) of the slice, those without data points included. */
  private void visitMetricSlice(Slice slice, ItemVisitor visitor) {
    if (slice.scope() < 0
        || (slice.itemFrom() == slice.itemTo() && slice.pointTo() <= slice.pointFrom())) {
      emit(slice);
      return;
    }
    OtlpIndex index = slice.index();
    int runItem = slice.itemFrom();
    int runPoint = slice.pointFrom();
    boolean cut = false;
    try {
      int lastMetric = slice.pointTo() > 0 ? slice.itemTo() : slice.itemTo() - 1;
      for (int m = slice.itemFrom(); m <= lastMetric; m++) {
        int from = m == slice.itemFrom() ? slice.pointFrom() : 0;
        int to = m == slice.itemTo() ? slice.pointTo() : index.dataPointCount(m);
        item.setMetric(slice, m, from, to);
        visitor.visit(item);
        if (item.dropped) {
          emitRange(slice, runItem, runPoint, m, from);
          if (m == slice.itemTo()) {
            runItem = m;
            runPoint = slice.pointTo();
          } else {
            runItem = m + 1;
            runPoint = 0;
          }
          cut = true;
        }
      }
    } finally {
      if (cut) {
        emitRange(slice, runItem, runPoint, slice.itemTo(), slice.pointTo());
        slice.release();
      } else {
        emit(slice);
      }
    }
  }

  /** Emits the part {@code [(fromItem, fromPoint), (toItem, toPoint))} if it is not empty. */
  private void emitRange(Slice slice, int fromItem, int fromPoint, int toItem, int toPoint) {
    if (fromItem > toItem || (fromItem == toItem && fromPoint >= toPoint)) {
      return;
    }
    Overlay own = existingOwn(slice.index());
    Slice part;
    if (own != null && slice.overlay() != own) {
      // Made seeing this visit's overlay at once, or finish() would make it again to repoint it.
      part =
          new Slice(
              slice.index(),
              slice.resource(),
              slice.scope(),
              fromItem,
              fromPoint,
              toItem,
              toPoint,
              own);
      if (slice.overlay() != null) {
        // Every unit of the part was visited: what the older overlay holds for it is final.
        own.absorb(slice.overlay(), part);
      }
    } else {
      part = slice.range(fromItem, fromPoint, toItem, toPoint);
    }
    part.retain();
    emit(part);
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
  Overlay existingOwn(OtlpIndex index) {
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
  Overlay ownOverlay(Slice slice) {
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
