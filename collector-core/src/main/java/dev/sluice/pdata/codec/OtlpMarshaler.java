package dev.sluice.pdata.codec;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.ItemWriter;
import dev.sluice.pdata.internal.OtlpFields.Request;
import dev.sluice.pdata.internal.OtlpFields.ResourceBlock;
import dev.sluice.pdata.internal.OtlpFields.ScopeBlock;
import dev.sluice.pdata.internal.Overlay;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.Slice;
import dev.sluice.pdata.internal.Varint;
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
      long resourceSize = resourceHeaderBytes(first);
      int k = i;
      while (k < resourceEnd) {
        Slice slice = batch.slice(k);
        if (slice.scope() < 0) {
          k++;
          continue;
        }
        int scopeEnd = scopeGroupEnd(batch, k, resourceEnd);
        int scopeSizeAt = context.addStep(scopeEnd);
        long scopeSize = scopeHeaderBytes(slice) + ItemWriter.scopeItems(batch, k, scopeEnd, null);
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

  /** Bytes of the item fields a slice covers, as they are written when it is alone in a block. */
  @Internal
  public static long itemBytes(Slice slice) {
    return ItemWriter.sliceItems(slice);
  }

  /** Bytes of the slice's resource header as written: its replacement when there is one. */
  @Internal
  public static int resourceHeaderBytes(Slice slice) {
    Overlay overlay = slice.overlay();
    if (overlay != null && overlay.resourceOffset(slice.resource()) >= 0) {
      return overlay.resourceLength(slice.resource());
    }
    return slice.index().resourceHeaderBytes(slice.resource());
  }

  /** Bytes of the slice's scope header as written: its replacement when there is one. */
  @Internal
  public static int scopeHeaderBytes(Slice slice) {
    Overlay overlay = slice.overlay();
    if (overlay != null && overlay.scopeOffset(slice.scope()) >= 0) {
      return overlay.scopeLength(slice.scope());
    }
    return slice.index().scopeHeaderBytes(slice.scope());
  }

  private static boolean resourceReplaced(Slice slice) {
    return slice.overlay() != null && slice.overlay().resourceOffset(slice.resource()) >= 0;
  }

  private static boolean scopeReplaced(Slice slice) {
    return slice.overlay() != null && slice.overlay().scopeOffset(slice.scope()) >= 0;
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

  /** Whether the two slices' resource blocks are written as one: the same header bytes. */
  @Internal
  public static boolean sameResource(Slice a, Slice b) {
    if (resourceReplaced(a) || resourceReplaced(b)) {
      return resourceReplaced(a)
          && resourceReplaced(b)
          && sameBytes(
              a.overlay(),
              a.overlay().resourceOffset(a.resource()),
              a.overlay().resourceLength(a.resource()),
              b.overlay(),
              b.overlay().resourceOffset(b.resource()),
              b.overlay().resourceLength(b.resource()));
    }
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

  /** Whether the two slices' scope blocks are written as one: the same header bytes. */
  @Internal
  public static boolean sameScope(Slice a, Slice b) {
    if (scopeReplaced(a) || scopeReplaced(b)) {
      return scopeReplaced(a)
          && scopeReplaced(b)
          && sameBytes(
              a.overlay(),
              a.overlay().scopeOffset(a.scope()),
              a.overlay().scopeLength(a.scope()),
              b.overlay(),
              b.overlay().scopeOffset(b.scope()),
              b.overlay().scopeLength(b.scope()));
    }
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
   * Byte equality of two replaced headers in their overlays. Slices that share an overlay (the
   * parts of one edited slice) point at the very same range, which is equal without a look.
   */
  private static boolean sameBytes(
      Overlay x, int offsetX, int lengthX, Overlay y, int offsetY, int lengthY) {
    byte[] bytesX = x.bytes();
    byte[] bytesY = y.bytes();
    if (bytesX == bytesY && offsetX == offsetY && lengthX == lengthY) {
      return true;
    }
    return Arrays.equals(bytesX, offsetX, offsetX + lengthX, bytesY, offsetY, offsetY + lengthY);
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
      boolean resourceReplaced = resourceReplaced(first);
      if (resourceReplaced) {
        Overlay overlay = first.overlay();
        out.writeBytes(
            overlay.bytes(),
            overlay.resourceOffset(first.resource()),
            overlay.resourceLength(first.resource()));
      } else {
        writeSegments(out, firstIndex, resSegFirst, resSegCount, 0, ResourceBlock.SCOPE_BLOCKS);
      }
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
        boolean scopeReplaced = scopeReplaced(slice);
        if (scopeReplaced) {
          Overlay overlay = slice.overlay();
          out.writeBytes(
              overlay.bytes(),
              overlay.scopeOffset(slice.scope()),
              overlay.scopeLength(slice.scope()));
        } else {
          writeSegments(out, index, scopeSegFirst, scopeSegCount, 0, ScopeBlock.ITEMS);
        }
        ItemWriter.scopeItems(batch, k, scopeEnd, out);
        if (!scopeReplaced) {
          writeSegments(
              out, index, scopeSegFirst, scopeSegCount, ScopeBlock.ITEMS, Integer.MAX_VALUE);
        }
        k = scopeEnd;
      }
      if (!resourceReplaced) {
        writeSegments(
            out,
            firstIndex,
            resSegFirst,
            resSegCount,
            ResourceBlock.SCOPE_BLOCKS,
            Integer.MAX_VALUE);
      }
      i = resourceEnd;
    }
  }

  /** Writes the header segments whose field number lies in {@code (above, below)}. */
  @Internal
  public static void writeSegments(
      ProtoWriter out, OtlpIndex index, int first, int count, int above, int below) {
    byte[] source = index.source();
    for (int s = first; s < first + count; s++) {
      int field = index.segField(s);
      if (field > above && field < below) {
        out.writeBytes(source, index.segOffset(s), index.segLength(s));
      }
    }
  }
}
