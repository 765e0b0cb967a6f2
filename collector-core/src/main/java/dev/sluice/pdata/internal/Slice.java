package dev.sluice.pdata.internal;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;

/**
 * A run of items of one scope block of one request: the unit batches are made of.
 *
 * <p>Positions are (item, data point) pairs: {@code (i, 0)} is just before item {@code i}, {@code
 * (i, p)} is just before data point {@code p} of metric {@code i}. A slice covers {@code
 * [(itemFrom, pointFrom), (itemTo, pointTo))}; for spans and log records both point offsets are 0.
 * A metric cut by a slice boundary is written with its header again for each part, unless the next
 * slice of the batch continues it.
 *
 * <p>{@code scope} is -1 for a resource block that has no scope blocks: such a slice carries only
 * the resource header. {@code overlay}, when not null, holds replacements for some of the slice's
 * items or headers, and marks the units a visit dropped: a drop leaves the slice whole, and every
 * reader skips the marked units. {@code droppedUnits} counts the marked units in the range, so that
 * {@link #units()} is exact without a look at the marks. Immutable; a slice is one reference to its
 * request and to its overlay.
 */
public record Slice(
    OtlpIndex index,
    int resource,
    int scope,
    int itemFrom,
    int pointFrom,
    int itemTo,
    int pointTo,
    Overlay overlay,
    int droppedUnits) {

  /** A slice of the range, counting the units its overlay marks as dropped in it. */
  static Slice of(
      OtlpIndex index,
      int resource,
      int scope,
      int itemFrom,
      int pointFrom,
      int itemTo,
      int pointTo,
      Overlay overlay) {
    int dropped = 0;
    if (overlay != null && overlay.dropsAny() && scope >= 0) {
      dropped =
          overlay.droppedIn(
              (int) (index.unitsBefore(itemFrom) + pointFrom),
              (int) (index.unitsBefore(itemTo) + pointTo));
    }
    return new Slice(
        index, resource, scope, itemFrom, pointFrom, itemTo, pointTo, overlay, dropped);
  }

  /** The slices that cover a whole request, in order. */
  public static int addAll(OtlpIndex index, Batch batch) {
    int added = 0;
    for (int r = 0; r < index.resourceCount(); r++) {
      int scopeCount = index.resourceScopeCount(r);
      if (scopeCount == 0) {
        batch.append(new Slice(index, r, -1, 0, 0, 0, 0, null, 0));
        added++;
      }
      int firstScope = index.resourceFirstScope(r);
      for (int s = firstScope; s < firstScope + scopeCount; s++) {
        int firstItem = index.scopeFirstItem(s);
        batch.append(
            new Slice(index, r, s, firstItem, 0, firstItem + index.scopeItemCount(s), 0, null, 0));
        added++;
      }
    }
    return added;
  }

  /** Takes the references this slice stands for. */
  public void retain() {
    index.retain(1);
    if (overlay != null) {
      overlay.retain();
    }
  }

  /** Lets go of the references this slice stands for. */
  public void release() {
    if (overlay != null) {
      overlay.release();
    }
    index.release(1);
  }

  /** Spans, log records or data points in the slice, those dropped left out. */
  public long units() {
    return rangeUnits() - droppedUnits;
  }

  /** Units in the slice's range, dropped ones included. */
  long rangeUnits() {
    if (scope < 0) {
      return 0;
    }
    return index.unitsBefore(itemTo) + pointTo - index.unitsBefore(itemFrom) - pointFrom;
  }

  /** The request's number of the slice's first unit. */
  int firstUnit() {
    return (int) (index.unitsBefore(itemFrom) + pointFrom);
  }

  /** The request's number of the unit just past the slice. */
  int endUnit() {
    return (int) (index.unitsBefore(itemTo) + pointTo);
  }

  /** Whether the slice's overlay marks the unit (a request's unit number) as dropped. */
  public boolean dropped(int unit) {
    return droppedUnits > 0 && overlay.unitDropped(unit);
  }

  /** The same range seeing {@code other}'s replacements. */
  Slice withOverlay(Overlay other) {
    return of(index, resource, scope, itemFrom, pointFrom, itemTo, pointTo, other);
  }

  /** The same slice with its count of dropped units taken again from its overlay's marks. */
  Slice recounted() {
    int dropped = overlay == null || scope < 0 ? 0 : overlay.droppedIn(firstUnit(), endUnit());
    return dropped == droppedUnits
        ? this
        : new Slice(index, resource, scope, itemFrom, pointFrom, itemTo, pointTo, overlay, dropped);
  }

  /** The part {@code [(fromItem, fromPoint), (toItem, toPoint))} of this slice. */
  Slice range(int fromItem, int fromPoint, int toItem, int toPoint) {
    return of(index, resource, scope, fromItem, fromPoint, toItem, toPoint, overlay);
  }

  /**
   * The part holding the first {@code units} units not dropped, for 0 < units < {@link #units()}:
   * it ends just after the last of them.
   */
  public Slice head(long units) {
    int target = cutUnit(units);
    int item = index.lastItemStartingAtOrBefore(target, itemFrom, itemTo);
    int point = (int) (target - index.unitsBefore(item));
    return range(itemFrom, pointFrom, item, point);
  }

  /** The part after {@link #head}, for 0 < units < {@link #units()}. */
  public Slice tail(long units) {
    int target = cutUnit(units);
    int item = index.lastItemStartingAtOrBefore(target, itemFrom, itemTo);
    int point = (int) (target - index.unitsBefore(item));
    return range(item, point, itemTo, pointTo);
  }

  /** The unit just after the {@code units}-th kept one: where a split after it cuts. */
  private int cutUnit(long units) {
    int first = firstUnit();
    return droppedUnits == 0 ? (int) (first + units) : overlay.afterKept(first, units);
  }
}
