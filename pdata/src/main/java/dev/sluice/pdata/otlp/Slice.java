package dev.sluice.pdata.otlp;

/**
 * A run of items of one scope block of one request: the unit batches are made of.
 *
 * <p>Positions are (item, data point) pairs: {@code (i, 0)} is just before item {@code i}, {@code
 * (i, p)} is just before data point {@code p} of metric {@code i}. A slice covers {@code
 * [(itemFrom, pointFrom), (itemTo, pointTo))}; for spans and log records both point offsets are 0.
 * A metric cut by a slice boundary is written with its header again for each part.
 *
 * <p>{@code scope} is -1 for a resource block that has no scope blocks: such a slice carries only
 * the resource header. Immutable.
 */
record Slice(
    OtlpIndex index,
    int resource,
    int scope,
    int itemFrom,
    int pointFrom,
    int itemTo,
    int pointTo) {

  /** The slices that cover a whole request, in order. */
  static int addAll(OtlpIndex index, Batch batch) {
    int added = 0;
    for (int r = 0; r < index.resourceCount(); r++) {
      int scopeCount = index.resourceScopeCount(r);
      if (scopeCount == 0) {
        batch.append(new Slice(index, r, -1, 0, 0, 0, 0));
        added++;
      }
      int firstScope = index.resourceFirstScope(r);
      for (int s = firstScope; s < firstScope + scopeCount; s++) {
        int firstItem = index.scopeFirstItem(s);
        batch.append(new Slice(index, r, s, firstItem, 0, firstItem + index.scopeItemCount(s), 0));
        added++;
      }
    }
    return added;
  }

  /** Spans, log records or data points in the slice. */
  long units() {
    if (scope < 0) {
      return 0;
    }
    return index.unitsBefore(itemTo) + pointTo - index.unitsBefore(itemFrom) - pointFrom;
  }

  /** The part before the first {@code units} units, for 0 < units < {@link #units()}. */
  Slice head(long units) {
    long target = index.unitsBefore(itemFrom) + pointFrom + units;
    int item = index.lastItemStartingAtOrBefore(target, itemFrom, itemTo);
    int point = (int) (target - index.unitsBefore(item));
    return new Slice(index, resource, scope, itemFrom, pointFrom, item, point);
  }

  /** The part after the first {@code units} units, for 0 < units < {@link #units()}. */
  Slice tail(long units) {
    long target = index.unitsBefore(itemFrom) + pointFrom + units;
    int item = index.lastItemStartingAtOrBefore(target, itemFrom, itemTo);
    int point = (int) (target - index.unitsBefore(item));
    return new Slice(index, resource, scope, item, point, itemTo, pointTo);
  }
}
