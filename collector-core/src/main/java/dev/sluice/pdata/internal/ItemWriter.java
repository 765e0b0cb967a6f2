package dev.sluice.pdata.internal;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.internal.OtlpFields.MetricData;
import dev.sluice.pdata.internal.OtlpFields.ScopeBlock;

/**
 * Sizes and writes the item fields of one scope block of a batch: whole items copied from their
 * request (or from the replacement a slice's overlay holds for them), and metrics of which only
 * some data points are in the batch written with their headers around those points.
 *
 * <p>Units a visit dropped (marked in the slice's overlay) are left out: a metric whose points in
 * the batch are all dropped, or a dropped metric without points, is not written at all. Consecutive
 * slices that continue the same metric of the same request (what a split inside a metric leaves)
 * come out as one metric holding all their points.
 *
 * <p>One routine does both passes, so the sizes cannot disagree with what is written: with a null
 * writer it only counts.
 */
public final class ItemWriter {
  private static final int ITEM_TAG_BYTES =
      Varint.size32(WireType.tag(ScopeBlock.ITEMS, WireType.LEN));

  public ItemWriter() {}

  /** Bytes of the item fields of one slice as if it were alone in its scope block. */
  public static long sliceItems(Slice slice) {
    return scopeItems(null, slice, 0, 1, null);
  }

  /** Bytes of the item fields of slices {@code [from, to)}; writes them too when out is set. */
  public static long scopeItems(Batch batch, int from, int to, ProtoWriter out) {
    return scopeItems(batch, null, from, to, out);
  }

  private static Slice at(Batch batch, Slice only, int q) {
    return only != null ? only : batch.slice(q);
  }

  public static long scopeItems(Batch batch, Slice only, int from, int to, ProtoWriter out) {
    long bytes = 0;
    int q = from;
    boolean leadWritten = false;
    while (q < to) {
      Slice slice = at(batch, only, q);
      OtlpIndex index = slice.index();
      if (index.signal() != Signal.METRICS) {
        bytes += wholeItems(slice, slice.itemFrom(), slice.itemTo(), out);
        q++;
        continue;
      }
      int itemFrom = slice.itemFrom();
      int itemTo = slice.itemTo();
      boolean within = itemFrom == itemTo;
      if (!leadWritten && (slice.pointFrom() > 0 || within) && (!within || hasPoints(slice))) {
        int last = only != null ? q : runEnd(batch, q, to, itemFrom);
        bytes += partialMetric(batch, only, q, last, itemFrom, true, out);
        q = last;
        Slice ended = at(batch, only, last);
        if (ended.itemFrom() == ended.itemTo()) {
          q++;
        } else {
          leadWritten = true;
        }
        continue;
      }
      if (within) {
        q++;
        leadWritten = false;
        continue;
      }
      int wholeFrom = slice.pointFrom() > 0 ? itemFrom + 1 : itemFrom;
      bytes += wholeItems(slice, wholeFrom, itemTo, out);
      leadWritten = false;
      if (slice.pointTo() > 0) {
        int last = only != null ? q : runEnd(batch, q, to, itemTo);
        bytes += partialMetric(batch, only, q, last, itemTo, false, out);
        Slice ended = at(batch, only, last);
        if (last == q) {
          q++;
        } else if (ended.itemFrom() == ended.itemTo()) {
          q = last + 1;
        } else {
          q = last;
          leadWritten = true;
        }
        continue;
      }
      q++;
    }
    return bytes;
  }

  private static boolean hasPoints(Slice slice) {
    return slice.pointTo() > slice.pointFrom();
  }

  /**
   * The last slice in {@code [q, to)} holding points of {@code metric} of q's request in a run that
   * starts in slice q: later slices continue it when they begin inside the same metric.
   */
  private static int runEnd(Batch batch, int q, int to, int metric) {
    Slice first = batch.slice(q);
    int last = q;
    // The run reaches past slice `last` only when that slice ends inside the metric.
    while (last + 1 < to && endsInside(batch.slice(last), metric)) {
      Slice next = batch.slice(last + 1);
      if (next.index() != first.index() || next.itemFrom() != metric || next.pointFrom() == 0) {
        break;
      }
      last++;
    }
    return last;
  }

  private static boolean endsInside(Slice slice, int metric) {
    return slice.itemTo() == metric && slice.pointTo() > 0;
  }

  /**
   * Where a run's points start in a slice: the first slice of a run that began at the metric's
   * start (a trailing part, or a whole metric) from point 0, every other from its own start.
   */
  private static int from(Slice slice, boolean firstOfRun, boolean lead) {
    return firstOfRun && !lead ? 0 : slice.pointFrom();
  }

  /** Where a run's points end in a slice: its end when it ends inside the metric, else all. */
  private static int to(Slice slice, int metric) {
    return slice.itemTo() == metric ? slice.pointTo() : slice.index().dataPointCount(metric);
  }

  /**
   * One metric field holding the points of {@code metric} in slices {@code [q, last]}: in slice q
   * from its start inside the metric ({@code lead}) or from the first point, in the others from
   * their start.
   */
  private static long partialMetric(
      Batch batch, Slice only, int q, int last, int metric, boolean lead, ProtoWriter out) {
    Slice first = only != null ? only : batch.slice(q);
    OtlpIndex index = first.index();
    Overlay header = first.overlay();
    boolean replaced = header != null && header.metricOffset(metric) >= 0;
    int dataSize =
        replaced
            ? header.dataHeaderLength(metric)
            : index.metric(metric, OtlpIndex.M_DATA_HEADER_BYTES);
    int rangePoints = 0;
    int keptPoints = 0;
    int firstRow = index.metric(metric, OtlpIndex.M_DP_FIRST);
    for (int k = q; k <= last; k++) {
      Slice slice = only != null ? only : batch.slice(k);
      int from = from(slice, k == q, lead);
      int to = to(slice, metric);
      dataSize += (int) points(slice, metric, from, to, null);
      rangePoints += Math.max(0, to - from);
      keptPoints +=
          Math.max(0, to - from)
              - (slice.droppedUnits() == 0
                  ? 0
                  : slice.overlay().droppedIn(firstRow + from, firstRow + to));
    }
    if (rangePoints > 0 ? keptPoints == 0 : header != null && header.metricDropped(metric)) {
      // Every point a visit dropped, or the metric without points dropped: it is not written.
      return 0;
    }
    int dataField = index.metric(metric, OtlpIndex.M_DATA_FIELD);
    int metricSize =
        (replaced
                ? header.metricHeadLength(metric)
                : index.metric(metric, OtlpIndex.M_HEADER_BYTES))
            + Varint.lengthDelimitedSize(dataField, dataSize);
    if (out != null && replaced) {
      // A replaced header: its other fields, then the data member's own fields, then the points.
      out.writeLengthDelimitedHeader(ScopeBlock.ITEMS, metricSize);
      out.writeBytes(header.bytes(), header.metricOffset(metric), header.metricHeadLength(metric));
      out.writeLengthDelimitedHeader(dataField, dataSize);
      out.writeBytes(
          header.bytes(), header.dataHeaderOffset(metric), header.dataHeaderLength(metric));
      for (int k = q; k <= last; k++) {
        Slice slice = only != null ? only : batch.slice(k);
        points(slice, metric, from(slice, k == q, lead), to(slice, metric), out);
      }
    } else if (out != null) {
      int metricSegFirst = index.metric(metric, OtlpIndex.M_SEG_FIRST);
      int metricSegCount = index.metric(metric, OtlpIndex.M_SEG_COUNT);
      int dataSegFirst = index.metric(metric, OtlpIndex.M_DATA_SEG_FIRST);
      int dataSegCount = index.metric(metric, OtlpIndex.M_DATA_SEG_COUNT);
      out.writeLengthDelimitedHeader(ScopeBlock.ITEMS, metricSize);
      OtlpMarshaler.writeSegments(out, index, metricSegFirst, metricSegCount, 0, dataField);
      out.writeLengthDelimitedHeader(dataField, dataSize);
      OtlpMarshaler.writeSegments(
          out, index, dataSegFirst, dataSegCount, 0, MetricData.DATA_POINTS);
      for (int k = q; k <= last; k++) {
        Slice slice = only != null ? only : batch.slice(k);
        points(slice, metric, from(slice, k == q, lead), to(slice, metric), out);
      }
      OtlpMarshaler.writeSegments(
          out, index, dataSegFirst, dataSegCount, MetricData.DATA_POINTS, Integer.MAX_VALUE);
      OtlpMarshaler.writeSegments(
          out, index, metricSegFirst, metricSegCount, dataField, Integer.MAX_VALUE);
    }
    return ITEM_TAG_BYTES + Varint.size32(metricSize) + metricSize;
  }

  /** Data point fields {@code [from, to)} of a metric, replaced ones from the slice's overlay. */
  private static long points(Slice slice, int metric, int from, int to, ProtoWriter out) {
    if (from >= to) {
      return 0;
    }
    OtlpIndex index = slice.index();
    Overlay overlay = slice.overlay();
    int first = index.metric(metric, OtlpIndex.M_DP_FIRST);
    byte[] source = index.source();
    if ((overlay == null || !overlay.metricTouched(metric))
        && index.metric(metric, OtlpIndex.M_DP_CONTIGUOUS) != 0) {
      int start = index.dataPointStart(first + from);
      int length = index.dataPointEnd(first + to - 1) - start;
      if (out != null) {
        out.writeBytes(source, start, length);
      }
      return length;
    }
    long bytes = 0;
    boolean drops = slice.droppedUnits() > 0;
    for (int p = first + from; p < first + to; p++) {
      if (drops && overlay.unitDropped(p)) {
        continue;
      }
      bytes += unit(overlay, p, source, index.dataPointStart(p), index.dataPointEnd(p), out);
    }
    return bytes;
  }

  /** One span, log record or data point: its replacement when there is one, else its bytes. */
  private static int unit(
      Overlay overlay, int unit, byte[] source, int start, int end, ProtoWriter out) {
    if (overlay != null && overlay.unitOffset(unit) >= 0) {
      int length = overlay.unitLength(unit);
      if (out != null) {
        out.writeBytes(overlay.bytes(), overlay.unitOffset(unit), length);
      }
      return length;
    }
    if (out != null) {
      out.writeBytes(source, start, end - start);
    }
    return end - start;
  }

  /** Items {@code [from, to)} of the slice's scope, each whole. */
  private static long wholeItems(Slice slice, int from, int to, ProtoWriter out) {
    if (from >= to) {
      return 0;
    }
    OtlpIndex index = slice.index();
    Overlay overlay = slice.overlay();
    byte[] source = index.source();
    if (overlay == null && index.scopeContiguous(slice.scope())) {
      return copy(source, index.itemStart(from), index.itemEnd(to - 1), out);
    }
    boolean metrics = index.signal() == Signal.METRICS;
    if (!metrics && slice.droppedUnits() > 0) {
      return keptItems(slice, from, to, out);
    }
    if (!metrics) {
      return items(overlay, index, from, to, out);
    }
    long bytes = 0;
    for (int item = from; item < to; item++) {
      if (overlay != null && overlay.metricTouched(item)) {
        bytes += wholeTouchedMetric(slice, item, out);
      } else {
        bytes += unit(null, 0, source, index.itemStart(item), index.itemEnd(item), out);
      }
    }
    return bytes;
  }

  /**
   * Spans or log records {@code [from, to)}, each its replacement when the overlay has one, else
   * its bytes in the request: items that lie back to back (replacements written one after another
   * by a visit that edits every item, or neighbours in the request) are copied as one run.
   */
  private static long items(Overlay overlay, OtlpIndex index, int from, int to, ProtoWriter out) {
    long bytes = 0;
    int item = from;
    while (item < to) {
      byte[] array;
      int start;
      int end;
      if (overlay != null && overlay.unitOffset(item) >= 0) {
        array = overlay.bytes();
        start = overlay.unitOffset(item);
        end = start + overlay.unitLength(item);
        item++;
        while (item < to && overlay.unitOffset(item) == end) {
          end += overlay.unitLength(item);
          item++;
        }
      } else {
        array = index.source();
        start = index.itemStart(item);
        end = index.itemEnd(item);
        item++;
        while (item < to
            && (overlay == null || overlay.unitOffset(item) < 0)
            && index.itemStart(item) == end) {
          end = index.itemEnd(item);
          item++;
        }
      }
      bytes += end - start;
      if (out != null) {
        out.writeBytes(array, start, end - start);
      }
    }
    return bytes;
  }

  /** The spans or log records of items {@code [from, to)} not dropped: runs between drops. */
  private static long keptItems(Slice slice, int from, int to, ProtoWriter out) {
    OtlpIndex index = slice.index();
    Overlay overlay = slice.overlay();
    byte[] source = index.source();
    boolean asStored = !overlay.replacesUnits() && index.scopeContiguous(slice.scope());
    long bytes = 0;
    int run = overlay.nextKept(from, to);
    while (run < to) {
      int runEnd = overlay.nextDropped(run, to);
      if (asStored) {
        bytes += copy(source, index.itemStart(run), index.itemEnd(runEnd - 1), out);
      } else {
        bytes += items(overlay, index, run, runEnd, out);
      }
      run = overlay.nextKept(runEnd, to);
    }
    return bytes;
  }

  private static int copy(byte[] source, int start, int end, ProtoWriter out) {
    if (out != null) {
      out.writeBytes(source, start, end - start);
    }
    return end - start;
  }

  /** A whole metric of which the overlay replaced some points: written point by point. */
  private static long wholeTouchedMetric(Slice slice, int metric, ProtoWriter out) {
    return partialMetric(null, slice, 0, 0, metric, false, out);
  }
}
