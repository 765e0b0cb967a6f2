package dev.sluice.pdata;

import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.internal.BatchEdits;
import dev.sluice.pdata.internal.BatchPartition;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.Overlay;
import dev.sluice.pdata.internal.Slice;
import java.util.Arrays;
import java.util.function.Predicate;

/**
 * An ordered list of {@link Slice}s of one signal, counted in units (spans, log records or metric
 * data points). Splitting and merging move slices, never items: moving {@code n} units costs
 * O(slices moved), whatever the number of items, and at most one slice is cut in two.
 *
 * <p>Edits ({@link #visit}, {@link #dropIf}) drop items by marking them in replacement storage the
 * batch owns (a bit per unit; the slice stays whole, so a drop costs no object) and replace items
 * or headers by pointing slices at replacement bytes there; the kept bytes are never copied. Every
 * reader (marshaler, views, splits, partitions, later visits) skips the marked units.
 *
 * <p>Ownership: each slice is one reference to its request (and to the replacement bytes it sees).
 * Whoever holds a batch either passes it on, moves its slices into another batch, or clears it;
 * clearing is what frees the requests for the memory budget.
 *
 * <p>Not thread-safe: one owner at a time. The bytes the slices point into are immutable, so a
 * batch that is no longer changed can be read by several exporters at once.
 */
public final class Batch {
  private final Signal signal;
  private Slice[] slices = new Slice[8];
  private int head;
  private int tail;
  private long units;

  public Batch(Signal signal) {
    this.signal = signal;
  }

  /** A batch holding the whole request. */
  public static Batch of(OtlpIndex index) {
    Batch batch = new Batch(index.signal());
    Slice.addAll(index, batch);
    return batch;
  }

  /** Adds the whole request at the end of this batch. */
  public void add(OtlpIndex index) {
    checkSignal(index.signal());
    Slice.addAll(index, this);
  }

  public Signal signal() {
    return signal;
  }

  /** Spans, log records or metric data points held. */
  public long unitCount() {
    return units;
  }

  public int sliceCount() {
    return tail - head;
  }

  /** True when the batch holds no slices (not even empty resource or scope blocks). */
  public boolean isEmpty() {
    return head == tail;
  }

  /**
   * The request slice {@code i} (of {@link #sliceCount()}) refers to: for per-request accounting
   * over a batch in O(slices). Consecutive slices often share a request.
   */
  public OtlpIndex requestOf(int i) {
    return slices[head + i].index();
  }

  @Internal
  public Slice slice(int i) {
    return slices[head + i];
  }

  @Internal
  public void append(Slice slice) {
    if (tail == slices.length) {
      makeRoom(1);
    }
    slices[tail++] = slice;
    units += slice.units();
    slice.retain();
  }

  /** Moves every slice of {@code other} to the end of this batch; {@code other} ends empty. */
  public void addAll(Batch other) {
    checkSignal(other.signal);
    if (other == this) {
      throw new IllegalArgumentException("a batch cannot add itself");
    }
    int count = other.tail - other.head;
    if (tail + count > slices.length) {
      makeRoom(count);
    }
    System.arraycopy(other.slices, other.head, slices, tail, count);
    takeOver(other, slices, tail, tail + count);
    tail += count;
    units += other.units;
    Arrays.fill(other.slices, other.head, other.tail, null);
    other.head = 0;
    other.tail = 0;
    other.units = 0;
  }

  /**
   * A second batch with the same slices, for a second owner: each batch is then read, edited,
   * passed on and cleared on its own, and an edit of either is written to replacement storage of
   * its own (neither sees the other's later edits). Costs a reference per slice, never a copy of
   * bytes.
   */
  public Batch copy() {
    Batch copy = new Batch(signal);
    int count = tail - head;
    copy.slices = new Slice[Math.max(count, 1)];
    for (int i = head; i < tail; i++) {
      slices[i].retain();
      copy.slices[copy.tail++] = slices[i];
    }
    copy.units = units;
    // Replacements this batch wrote so far are now seen by two: the next edit of either copies.
    disown(slices, head, tail);
    return copy;
  }

  /**
   * Moves up to {@code maxUnits} units from the front of this batch to the end of {@code
   * destination}, cutting at most one slice (a metric is cut between data points). Empty blocks at
   * the front move along. Returns the units moved.
   */
  public long moveTo(Batch destination, long maxUnits) {
    checkSignal(destination.signal);
    if (destination == this) {
      throw new IllegalArgumentException("a batch cannot move slices to itself");
    }
    if (maxUnits < 0) {
      throw new IllegalArgumentException("maxUnits must not be negative: " + maxUnits);
    }
    long remaining = maxUnits;
    int end = head;
    long moved = 0;
    while (end < tail && slices[end].units() <= remaining) {
      long sliceUnits = slices[end].units();
      remaining -= sliceUnits;
      moved += sliceUnits;
      end++;
    }
    int count = end - head;
    if (destination.tail + count + 1 > destination.slices.length) {
      destination.makeRoom(count + 1);
    }
    System.arraycopy(slices, head, destination.slices, destination.tail, count);
    disown(slices, head, end);
    Arrays.fill(slices, head, end, null);
    destination.tail += count;
    head = end;
    if (remaining > 0 && head < tail) {
      Slice cut = slices[head];
      cut.retain();
      disown(slices, head, head + 1);
      destination.slices[destination.tail++] = cut.head(remaining);
      slices[head] = cut.tail(remaining);
      moved += remaining;
    }
    destination.units += moved;
    units -= moved;
    if (head == tail) {
      head = 0;
      tail = 0;
    }
    return moved;
  }

  /**
   * About the size of this batch marshaled: its items and each slice's headers, without coalescing.
   * For queue accounting; O(slices).
   */
  public long marshaledSizeEstimate() {
    long bytes = 0;
    for (int i = head; i < tail; i++) {
      Slice slice = slices[i];
      bytes += OtlpMarshaler.resourceHeaderBytes(slice) + 8;
      if (slice.scope() >= 0) {
        bytes += OtlpMarshaler.scopeHeaderBytes(slice) + 8 + OtlpMarshaler.itemBytes(slice);
      }
    }
    return bytes;
  }

  /** Drops every slice; requests held for memory accounting learn when their last slice is gone. */
  public void clear() {
    for (int i = head; i < tail; i++) {
      slices[i].release();
    }
    Arrays.fill(slices, head, tail, null);
    head = 0;
    tail = 0;
    units = 0;
  }

  /**
   * Visits every span, log record or data point in order; the visitor may drop or replace the item
   * it is shown, or replace its resource or scope header (see {@link BatchItem}). Edits take effect
   * when the visit ends: dropped items are marked and skipped from then on, a slice left without
   * items leaves the batch, and blocks left without items are gone from the output. Returns the
   * units dropped.
   */
  public long visit(ItemVisitor visitor) {
    return BatchEdits.run(this, visitor, false);
  }

  /**
   * Visits the resource and scope headers of the batch: shows one item of each slice (the first it
   * still holds; for metrics, the first metric, one without data points included), since every item
   * of a slice shares them. The visitor may replace the resource or scope header (see {@link
   * BatchItem#replaceResource}); dropping or replacing the item throws {@link
   * IllegalStateException}. A visit of every item costs a call per item; this one a call per slice.
   */
  public void visitHeaders(ItemVisitor visitor) {
    BatchEdits.runHeaders(this, visitor);
  }

  /**
   * Visits every metric of a metrics batch in order, or each part of a metric that slice boundaries
   * cut, metrics without data points included; the visitor may drop the metric (with its data
   * points in this batch) or replace its header ({@link BatchItem#replaceMetric}). Returns the data
   * points dropped.
   */
  public long visitMetrics(ItemVisitor visitor) {
    if (signal != Signal.METRICS) {
      throw new IllegalArgumentException("a " + signal + " batch has no metrics");
    }
    return BatchEdits.run(this, visitor, true);
  }

  /**
   * Adds every item of this batch to {@code parts[key.partOf(item)]}, in order, without changing
   * this batch: it may be shared read-only by other exporters and other threads, which may split it
   * at the same time. Each item keeps its resource and scope header (replaced headers and replaced
   * items included); a run of consecutive items of one part becomes one slice, so a batch of
   * whole-trace requests costs O(slices), not O(items), and a slice whose items all go to one part
   * is added to it as it is.
   *
   * <p>Each part holds its own references to the requests (as for any slice) and is cleared, or
   * passed on, by its holder. The parts' slices see this batch's replacement bytes; edits of a part
   * later edit a copy, so this batch must not be edited while the parts hold them.
   *
   * <p>The key is asked once per unit in order: per span, log record, or metric data point. A
   * metric whose points go to several parts appears in each part with its header. Blocks without
   * units (resource blocks without scope blocks, scope blocks without items, metrics without data
   * points) go to {@code parts[0]}; the key is not asked about them. So {@code parts[0]} may end up
   * holding slices but no units: a holder that sends only non-empty parts checks {@link
   * #unitCount()}.
   *
   * <p>The key sees a read-only {@link BatchItem}, valid only during its call (see {@link
   * PartKey}). Allocates O(parts + slices added), nothing per item.
   *
   * @throws IllegalArgumentException when a part is of another signal or is this batch, or when the
   *     key gives an index outside {@code [0, parts.length)}; the parts then hold the items added
   *     before it, which their holder clears
   */
  public void partitionInto(Batch[] parts, PartKey key) {
    for (Batch part : parts) {
      checkSignal(part.signal);
      if (part == this) {
        throw new IllegalArgumentException("a batch cannot be partitioned into itself");
      }
    }
    if (isEmpty()) {
      return;
    }
    if (parts.length == 0) {
      throw new IllegalArgumentException("no parts to partition a non-empty batch into");
    }
    new BatchPartition(parts, key).partition(this);
  }

  /**
   * Marks every request the batch refers to as abandoned ({@link OtlpIndex#abandon}): the batch is
   * being dropped only because its exporter stops, and durable pipelines must deliver it after the
   * restart. The batch itself is not changed.
   */
  public void abandonRequests() {
    for (int i = head; i < tail; i++) {
      slices[i].index().abandon();
    }
  }

  /** Whether some request the batch refers to was abandoned ({@link #abandonRequests}). */
  public boolean anyRequestAbandoned() {
    for (int i = head; i < tail; i++) {
      if (slices[i].index().abandoned()) {
        return true;
      }
    }
    return false;
  }

  /** Drops every span, log record or data point the predicate accepts; returns how many. */
  public long dropIf(Predicate<BatchItem> drop) {
    return visit(
        item -> {
          if (drop.test(item)) {
            item.drop();
          }
        });
  }

  /** Every slice of {@code from} moved here: replacement bytes it owned are this batch's now. */
  private void takeOver(Batch from, Slice[] moved, int start, int end) {
    for (int i = start; i < end; i++) {
      Overlay overlay = moved[i].overlay();
      if (overlay != null && overlay.owner == from) {
        overlay.owner = this;
      }
    }
  }

  /** Slices moved out: their replacement bytes are now shared, so the next edit makes a copy. */
  private static void disown(Slice[] moved, int from, int to) {
    for (int i = from; i < to; i++) {
      Overlay overlay = moved[i].overlay();
      if (overlay != null) {
        overlay.owner = null;
      }
    }
  }

  // For BatchEdits: the visit builds the new slice list in a spare array and swaps it in.

  @Internal
  public Slice[] slicesArray() {
    return slices;
  }

  @Internal
  public int headPosition() {
    return head;
  }

  @Internal
  public int tailPosition() {
    return tail;
  }

  @Internal
  public void replaceSlices(Slice[] newSlices, int count, long newUnits) {
    slices = newSlices;
    head = 0;
    tail = count;
    units = newUnits;
  }

  private void makeRoom(int extra) {
    int count = tail - head;
    if (count + extra <= slices.length && head > 0) {
      System.arraycopy(slices, head, slices, 0, count);
      Arrays.fill(slices, count, tail, null);
    } else {
      Slice[] grown = new Slice[Math.max(count + extra, slices.length * 2)];
      System.arraycopy(slices, head, grown, 0, count);
      slices = grown;
    }
    head = 0;
    tail = count;
  }

  private void checkSignal(Signal other) {
    if (other != signal) {
      throw new IllegalArgumentException("a " + signal + " batch cannot hold " + other);
    }
  }

  @Override
  public String toString() {
    return signal
        + " batch: "
        + units
        + " "
        + signal.unitName()
        + " in "
        + sliceCount()
        + " slices";
  }
}
