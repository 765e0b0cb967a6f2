package dev.sluice.pdata.otlp;

import dev.sluice.pdata.otlp.OtlpFields.MetricData;
import dev.sluice.pdata.otlp.OtlpFields.Request;
import dev.sluice.pdata.otlp.OtlpFields.ResourceBlock;
import dev.sluice.pdata.otlp.OtlpFields.ScopeBlock;
import dev.sluice.pdata.wire.ProtoWriter;
import dev.sluice.pdata.wire.Varint;
import dev.sluice.pdata.wire.WireType;
import java.util.Arrays;

/**
 * Writes an {@code Export*ServiceRequest} for a {@link Batch}: a sizing pass that records block
 * sizes in the {@link MarshalContext}, then a writing pass that emits tags and lengths and copies
 * header and item bytes from the requests the slices point into.
 *
 * <p>Adjacent slices whose resource headers are byte-equal come out as one resource block, and
 * within it adjacent slices with byte-equal scope headers as one scope block. A header's fields are
 * written around its children in field-number order, so a request that protobuf-java wrote and that
 * was neither split nor coalesced comes out byte for byte the same.
 *
 * <p>Stateless; all state is in the context. Allocates nothing once the context has grown.
 */
public final class OtlpMarshaler {
  private static final int ITEM_TAG_BYTES =
      Varint.size32(WireType.tag(ScopeBlock.ITEMS, WireType.LEN));

  private OtlpMarshaler() {}

  /** Marshals the batch into {@code context.output()}, replacing what it held; returns the size. */
  public static int marshal(Batch batch, MarshalContext context) {
    int size = plan(batch, context);
    ProtoWriter out = context.output();
    out.reset();
    out.ensureRemaining(size);
    write(batch, context, out);
    if (out.size() != size) {
      throw new IllegalStateException("sized " + size + " bytes, wrote " + out.size());
    }
    return size;
  }

  /** Marshals into a new array. Allocates: for tests and cold paths. */
  public static byte[] toByteArray(Batch batch) {
    MarshalContext context = new MarshalContext();
    marshal(batch, context);
    return context.output().toByteArray();
  }

  // Sizing pass.

  private static int plan(Batch batch, MarshalContext context) {
    context.planSize = 0;
    long total = 0;
    int count = batch.sliceCount();
    int i = 0;
    while (i < count) {
      int resourceEnd = resourceGroupEnd(batch, i, count);
      int resourceSizeAt = context.addStep(resourceEnd);
      Slice first = batch.slice(i);
      long resourceSize = first.index().resourceHeaderBytes(first.resource());
      int k = i;
      while (k < resourceEnd) {
        Slice slice = batch.slice(k);
        if (slice.scope() < 0) {
          k++;
          continue;
        }
        int scopeEnd = scopeGroupEnd(batch, k, resourceEnd);
        int scopeSizeAt = context.addStep(scopeEnd);
        long scopeSize = slice.index().scopeHeaderBytes(slice.scope());
        for (int q = k; q < scopeEnd; q++) {
          scopeSize += itemBytes(batch.slice(q));
        }
        context.plan[scopeSizeAt] = checkedSize(scopeSize);
        resourceSize += Varint.lengthDelimitedSize(ResourceBlock.SCOPE_BLOCKS, (int) scopeSize);
        k = scopeEnd;
      }
      context.plan[resourceSizeAt] = checkedSize(resourceSize);
      total += Varint.lengthDelimitedSize(Request.RESOURCE_BLOCKS, (int) resourceSize);
      i = resourceEnd;
    }
    return checkedSize(total);
  }

  private static int checkedSize(long size) {
    if (size > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("batch too large to marshal: " + size + " bytes");
    }
    return (int) size;
  }

  /** Bytes of the item fields a slice covers, as they will be written. */
  static long itemBytes(Slice slice) {
    OtlpIndex index = slice.index();
    if (index.signal() != Signal.METRICS) {
      return wholeItemBytes(index, slice.scope(), slice.itemFrom(), slice.itemTo());
    }
    int from = slice.itemFrom();
    int to = slice.itemTo();
    if (from == to) {
      return slice.pointTo() > slice.pointFrom()
          ? partialMetricBytes(index, from, slice.pointFrom(), slice.pointTo())
          : 0;
    }
    long bytes = 0;
    if (slice.pointFrom() > 0) {
      bytes += partialMetricBytes(index, from, slice.pointFrom(), index.dataPointCount(from));
      from++;
    }
    bytes += wholeItemBytes(index, slice.scope(), from, to);
    if (slice.pointTo() > 0) {
      bytes += partialMetricBytes(index, to, 0, slice.pointTo());
    }
    return bytes;
  }

  private static long wholeItemBytes(OtlpIndex index, int scope, int from, int to) {
    if (from >= to) {
      return 0;
    }
    if (index.scopeContiguous(scope)) {
      return index.itemEnd(to - 1) - index.itemStart(from);
    }
    long bytes = 0;
    for (int item = from; item < to; item++) {
      bytes += index.itemEnd(item) - index.itemStart(item);
    }
    return bytes;
  }

  /** Bytes of the metric field holding data points {@code [from, to)} of a metric. */
  private static int partialMetricBytes(OtlpIndex index, int metric, int from, int to) {
    int metricSize = partialMetricSize(index, metric, partialDataSize(index, metric, from, to));
    return ITEM_TAG_BYTES + Varint.size32(metricSize) + metricSize;
  }

  private static int partialDataSize(OtlpIndex index, int metric, int from, int to) {
    return index.metric(metric, OtlpIndex.M_DATA_HEADER_BYTES)
        + dataPointBytes(index, metric, from, to);
  }

  private static int partialMetricSize(OtlpIndex index, int metric, int dataSize) {
    int dataField = index.metric(metric, OtlpIndex.M_DATA_FIELD);
    return index.metric(metric, OtlpIndex.M_HEADER_BYTES)
        + Varint.lengthDelimitedSize(dataField, dataSize);
  }

  private static int dataPointBytes(OtlpIndex index, int metric, int from, int to) {
    int first = index.metric(metric, OtlpIndex.M_DP_FIRST);
    if (index.metric(metric, OtlpIndex.M_DP_CONTIGUOUS) != 0) {
      return index.dataPointEnd(first + to - 1) - index.dataPointStart(first + from);
    }
    int bytes = 0;
    for (int p = first + from; p < first + to; p++) {
      bytes += index.dataPointEnd(p) - index.dataPointStart(p);
    }
    return bytes;
  }

  private static int resourceGroupEnd(Batch batch, int from, int count) {
    Slice first = batch.slice(from);
    int end = from + 1;
    while (end < count && sameResource(first, batch.slice(end))) {
      end++;
    }
    return end;
  }

  private static int scopeGroupEnd(Batch batch, int from, int resourceEnd) {
    Slice first = batch.slice(from);
    int end = from + 1;
    while (end < resourceEnd
        && batch.slice(end).scope() >= 0
        && sameScope(first, batch.slice(end))) {
      end++;
    }
    return end;
  }

  private static boolean sameResource(Slice a, Slice b) {
    OtlpIndex x = a.index();
    OtlpIndex y = b.index();
    if (x == y && a.resource() == b.resource()) {
      return true;
    }
    return x.resourceHash(a.resource()) == y.resourceHash(b.resource())
        && segmentsEqual(
            x,
            x.resourceSegFirst(a.resource()),
            x.resourceSegCount(a.resource()),
            y,
            y.resourceSegFirst(b.resource()),
            y.resourceSegCount(b.resource()));
  }

  private static boolean sameScope(Slice a, Slice b) {
    OtlpIndex x = a.index();
    OtlpIndex y = b.index();
    if (x == y && a.scope() == b.scope()) {
      return true;
    }
    return x.scopeHash(a.scope()) == y.scopeHash(b.scope())
        && segmentsEqual(
            x,
            x.scopeSegFirst(a.scope()),
            x.scopeSegCount(a.scope()),
            y,
            y.scopeSegFirst(b.scope()),
            y.scopeSegCount(b.scope()));
  }

  /**
   * Byte equality of two headers, segment by segment. Headers with equal bytes but fields in
   * another order or split differently count as different: they are then written twice, which is
   * still correct.
   */
  private static boolean segmentsEqual(
      OtlpIndex x, int firstX, int countX, OtlpIndex y, int firstY, int countY) {
    if (countX != countY) {
      return false;
    }
    byte[] bx = x.source();
    byte[] by = y.source();
    for (int s = 0; s < countX; s++) {
      int offX = x.segOffset(firstX + s);
      int lenX = x.segLength(firstX + s);
      int offY = y.segOffset(firstY + s);
      int lenY = y.segLength(firstY + s);
      if (lenX != lenY || !Arrays.equals(bx, offX, offX + lenX, by, offY, offY + lenY)) {
        return false;
      }
    }
    return true;
  }

  // Writing pass: replays the plan.

  private static void write(Batch batch, MarshalContext context, ProtoWriter out) {
    int[] plan = context.plan;
    int step = 0;
    int i = 0;
    int count = batch.sliceCount();
    while (i < count) {
      int resourceEnd = plan[step];
      int resourceSize = plan[step + 1];
      step += 2;
      Slice first = batch.slice(i);
      OtlpIndex firstIndex = first.index();
      int resSegFirst = firstIndex.resourceSegFirst(first.resource());
      int resSegCount = firstIndex.resourceSegCount(first.resource());
      out.writeLengthDelimitedHeader(Request.RESOURCE_BLOCKS, resourceSize);
      writeSegments(out, firstIndex, resSegFirst, resSegCount, 0, ResourceBlock.SCOPE_BLOCKS);
      int k = i;
      while (k < resourceEnd) {
        Slice slice = batch.slice(k);
        if (slice.scope() < 0) {
          k++;
          continue;
        }
        int scopeEnd = plan[step];
        int scopeSize = plan[step + 1];
        step += 2;
        OtlpIndex index = slice.index();
        int scopeSegFirst = index.scopeSegFirst(slice.scope());
        int scopeSegCount = index.scopeSegCount(slice.scope());
        out.writeLengthDelimitedHeader(ResourceBlock.SCOPE_BLOCKS, scopeSize);
        writeSegments(out, index, scopeSegFirst, scopeSegCount, 0, ScopeBlock.ITEMS);
        for (int q = k; q < scopeEnd; q++) {
          writeItems(out, batch.slice(q));
        }
        writeSegments(
            out, index, scopeSegFirst, scopeSegCount, ScopeBlock.ITEMS, Integer.MAX_VALUE);
        k = scopeEnd;
      }
      writeSegments(
          out, firstIndex, resSegFirst, resSegCount, ResourceBlock.SCOPE_BLOCKS, Integer.MAX_VALUE);
      i = resourceEnd;
    }
  }

  /** Writes the header segments whose field number lies in {@code (above, below)}. */
  private static void writeSegments(
      ProtoWriter out, OtlpIndex index, int first, int count, int above, int below) {
    byte[] source = index.source();
    for (int s = first; s < first + count; s++) {
      int field = index.segField(s);
      if (field > above && field < below) {
        out.writeBytes(source, index.segOffset(s), index.segLength(s));
      }
    }
  }

  private static void writeItems(ProtoWriter out, Slice slice) {
    OtlpIndex index = slice.index();
    if (index.signal() != Signal.METRICS) {
      writeWholeItems(out, index, slice.scope(), slice.itemFrom(), slice.itemTo());
      return;
    }
    int from = slice.itemFrom();
    int to = slice.itemTo();
    if (from == to) {
      if (slice.pointTo() > slice.pointFrom()) {
        writePartialMetric(out, index, from, slice.pointFrom(), slice.pointTo());
      }
      return;
    }
    if (slice.pointFrom() > 0) {
      writePartialMetric(out, index, from, slice.pointFrom(), index.dataPointCount(from));
      from++;
    }
    writeWholeItems(out, index, slice.scope(), from, to);
    if (slice.pointTo() > 0) {
      writePartialMetric(out, index, to, 0, slice.pointTo());
    }
  }

  private static void writeWholeItems(
      ProtoWriter out, OtlpIndex index, int scope, int from, int to) {
    if (from >= to) {
      return;
    }
    byte[] source = index.source();
    if (index.scopeContiguous(scope)) {
      int start = index.itemStart(from);
      out.writeBytes(source, start, index.itemEnd(to - 1) - start);
      return;
    }
    for (int item = from; item < to; item++) {
      int start = index.itemStart(item);
      out.writeBytes(source, start, index.itemEnd(item) - start);
    }
  }

  /** A metric with only data points {@code [from, to)}: its headers written again around them. */
  private static void writePartialMetric(
      ProtoWriter out, OtlpIndex index, int metric, int from, int to) {
    int dataField = index.metric(metric, OtlpIndex.M_DATA_FIELD);
    int dataSize = partialDataSize(index, metric, from, to);
    int metricSize = partialMetricSize(index, metric, dataSize);
    int metricSegFirst = index.metric(metric, OtlpIndex.M_SEG_FIRST);
    int metricSegCount = index.metric(metric, OtlpIndex.M_SEG_COUNT);
    int dataSegFirst = index.metric(metric, OtlpIndex.M_DATA_SEG_FIRST);
    int dataSegCount = index.metric(metric, OtlpIndex.M_DATA_SEG_COUNT);
    out.writeLengthDelimitedHeader(ScopeBlock.ITEMS, metricSize);
    writeSegments(out, index, metricSegFirst, metricSegCount, 0, dataField);
    out.writeLengthDelimitedHeader(dataField, dataSize);
    writeSegments(out, index, dataSegFirst, dataSegCount, 0, MetricData.DATA_POINTS);
    int first = index.metric(metric, OtlpIndex.M_DP_FIRST);
    byte[] source = index.source();
    if (index.metric(metric, OtlpIndex.M_DP_CONTIGUOUS) != 0) {
      int start = index.dataPointStart(first + from);
      out.writeBytes(source, start, index.dataPointEnd(first + to - 1) - start);
    } else {
      for (int p = first + from; p < first + to; p++) {
        int start = index.dataPointStart(p);
        out.writeBytes(source, start, index.dataPointEnd(p) - start);
      }
    }
    writeSegments(
        out, index, dataSegFirst, dataSegCount, MetricData.DATA_POINTS, Integer.MAX_VALUE);
    writeSegments(out, index, metricSegFirst, metricSegCount, dataField, Integer.MAX_VALUE);
  }
}
