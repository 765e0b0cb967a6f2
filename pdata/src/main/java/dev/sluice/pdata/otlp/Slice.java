package dev.sluice.pdata.otlp;

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
 * items or headers. Immutable; a slice is one reference to its request and to its overlay.
 */
record Slice(
    OtlpIndex index,
    int resource,
    int scope,
    int itemFrom,
    int pointFrom,
    int itemTo,
    int pointTo,
    Overlay overlay) {

  /** The slices that cover a whole request, in order. */
  static int addAll(OtlpIndex index, Batch batch) {
    int added = 0;
    for (int r = 0; r < index.resourceCount(); r++) {
      int scopeCount = index.resourceScopeCount(r);
      if (scopeCount == 0) {
        batch.append(new Slice(index, r, -1, 0, 0, 0, 0, null));
        added++;
      }
      int firstScope = index.resourceFirstScope(r);
      for (int s = firstScope; s < firstScope + scopeCount; s++) {
        int firstItem = index.scopeFirstItem(s);
        batch.append(
            new Slice(index, r, s, firstItem, 0, firstItem + index.scopeItemCount(s), 0, null));
        added++;
      }
    }
    return added;
  }

  /** Takes the references this slice stands for. */
  void retain() {
    index.retain(1);
    if (overlay != null) {
      overlay.retain();
    }
  }

  /** Lets go of the references this slice stands for. */
  void release() {
    if (overlay != null) {
      overlay.release();
    }
    index.release(1);
  }

  /** Spans, log records or data points in the slice. */
  long units() {
    if (scope < 0) {
      return 0;
    }
    return index.unitsBefore(itemTo) + pointTo - index.unitsBefore(itemFrom) - pointFrom;
  }

  /** The same range seeing {@code other}'s replacements. */
  Slice withOverlay(Overlay other) {
    return new Slice(index, resource, scope, itemFrom, pointFrom, itemTo, pointTo, other);
  }

  /** The part {@code [(fromItem, fromPoint), (toItem, toPoint))} of this slice. */
  Slice range(int fromItem, int fromPoint, int toItem, int toPoint) {
    return new Slice(index, resource, scope, fromItem, fromPoint, toItem, toPoint, overlay);
  }

  /** The part before the first {@code units} units, for 0 < units < {@link #units()}. */
  Slice head(long units) {
    long target = index.unitsBefore(itemFrom) + pointFrom + units;
    int item = index.lastItemStartingAtOrBefore(target, itemFrom, itemTo);
    int point = (int) (target - index.unitsBefore(item));
    return range(itemFrom, pointFrom, item, point);
  }

  /** The part after the first {@code units} units, for 0 < units < {@link #units()}. */
  Slice tail(long units) {
    long target = index.unitsBefore(itemFrom) + pointFrom + units;
    int item = index.lastItemStartingAtOrBefore(target, itemFrom, itemTo);
    int point = (int) (target - index.unitsBefore(item));
    return range(item, point, itemTo, pointTo);
  }
}
