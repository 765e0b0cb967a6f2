package dev.sluice.pdata.codec;

import dev.sluice.pdata.RequestMetadata;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.RefCheck;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What the indexer learned about one validated request: where each resource block's header, each
 * scope block's header and each item lies in the request's bytes. Immutable; the bytes it points
 * into are never written after indexing, so slices of one index can go to any number of batches and
 * exporters at once.
 *
 * <p>A header is the set of a block's fields other than its children (for a resource block: the
 * {@code Resource}, the {@code schema_url} and unknown fields), kept as segments of the source with
 * their field numbers. Items are spans, log records or metrics; a metric also records its header,
 * its data message's header and its data points, so that it can be split between data points.
 *
 * <p>All tables are flat int arrays, one row per entry: indexing a request allocates a fixed number
 * of objects whatever its size.
 */
public final class OtlpIndex {
  // Resource block rows.
  static final int R_SEG_FIRST = 0;
  static final int R_SEG_COUNT = 1;
  static final int R_HEADER_BYTES = 2;
  static final int R_FIRST_SCOPE = 3;
  static final int R_SCOPE_COUNT = 4;
  static final int R_COLUMNS = 5;

  // Scope block rows.
  static final int S_SEG_FIRST = 0;
  static final int S_SEG_COUNT = 1;
  static final int S_HEADER_BYTES = 2;
  static final int S_FIRST_ITEM = 3;
  static final int S_ITEM_COUNT = 4;
  static final int S_RESOURCE = 5;

  /** 1 when the scope's items lie back to back in the source, so a run copies in one go. */
  static final int S_CONTIGUOUS = 6;

  static final int S_COLUMNS = 7;

  // Header segment rows: a field of a header, tag included.
  static final int G_OFFSET = 0;
  static final int G_LENGTH = 1;
  static final int G_FIELD = 2;
  static final int G_COLUMNS = 3;

  // Item rows: the item's field in its scope block, tag included.
  static final int I_START = 0;
  static final int I_END = 1;

  /** Marks the validator left on a span or log record item ({@link #COMMON_SPAN}). */
  static final int I_MARKS = 2;

  static final int ITEM_COLUMNS = 3;

  /**
   * In an item's {@link #I_MARKS}: the item is a span the validator passed in its span loop alone
   * ({@link WireValidator#lastSpanCommon}).
   */
  static final int COMMON_SPAN = 1;

  // Further columns of a metric's row.
  static final int M_UNITS_BEFORE = 2;
  @Internal public static final int M_SEG_FIRST = 3;
  @Internal public static final int M_SEG_COUNT = 4;
  @Internal public static final int M_HEADER_BYTES = 5;

  /** The field number of the metric's data message, 0 when it has none. */
  @Internal public static final int M_DATA_FIELD = 6;

  @Internal public static final int M_DATA_SEG_FIRST = 7;
  @Internal public static final int M_DATA_SEG_COUNT = 8;
  @Internal public static final int M_DATA_HEADER_BYTES = 9;
  @Internal public static final int M_DP_FIRST = 10;
  @Internal public static final int M_DP_CONTIGUOUS = 11;
  static final int METRIC_COLUMNS = 12;

  // Data point rows: the data point's field in its data message, tag included.
  static final int D_START = 0;
  static final int D_END = 1;
  static final int D_COLUMNS = 2;

  private final Signal signal;
  @Internal public final byte[] source;
  private final int sourceOffset;
  private final int sourceLength;
  private final int[] resources;
  private final long[] resourceHashes;
  private final int[] scopes;
  private final long[] scopeHashes;
  private final int[] segments;
  private final int[] items;
  private final int itemColumns;
  private final int[] dataPoints;
  private final int itemCount;
  private final long unitCount;

  // How many slices (plus the receiver's hold) still refer to the request; at zero the releaser
  // learns that the request's memory is free.
  private static final VarHandle REFERENCES;
  private volatile int references;
  private volatile Releaser releaser;
  private volatile boolean abandoned;

  // Set by the receiver before it hands the request on, read by whoever gets it after that.
  private RequestMetadata metadata = RequestMetadata.NONE;

  static {
    try {
      REFERENCES = MethodHandles.lookup().findVarHandle(OtlpIndex.class, "references", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Told once when nothing refers to a held request any more. */
  public interface Releaser {
    void released(OtlpIndex request);

    /**
     * Replacement bytes that batches wrote for {@code request} grew (positive) or were freed
     * (negative): they count like the request's own bytes. The request is still held while they
     * exist.
     */
    default void editBytesChanged(OtlpIndex request, long deltaBytes) {}
  }

  OtlpIndex(
      Signal signal,
      byte[] source,
      int sourceOffset,
      int sourceLength,
      int[] resources,
      long[] resourceHashes,
      int[] scopes,
      long[] scopeHashes,
      int[] segments,
      int[] items,
      int[] dataPoints,
      long unitCount) {
    this.signal = signal;
    this.source = source;
    this.sourceOffset = sourceOffset;
    this.sourceLength = sourceLength;
    this.resources = resources;
    this.resourceHashes = resourceHashes;
    this.scopes = scopes;
    this.scopeHashes = scopeHashes;
    this.segments = segments;
    this.items = items;
    this.itemColumns = signal == Signal.METRICS ? METRIC_COLUMNS : ITEM_COLUMNS;
    this.itemCount = items.length / itemColumns;
    this.dataPoints = dataPoints;
    this.unitCount = unitCount;
  }

  public Signal signal() {
    return signal;
  }

  /**
   * The gRPC metadata or HTTP headers the receiver kept with the request; {@link
   * RequestMetadata#NONE} when it kept none (and for data built by a component).
   */
  public RequestMetadata metadata() {
    return metadata;
  }

  /**
   * Keeps {@code metadata} with the request: for the receiver that made it, before it hands the
   * request on (the hand-off publishes it to the threads that read it), so before any pipeline
   * accounts for its bytes ({@link #retainedBytes()} counts the metadata's).
   */
  public void metadata(RequestMetadata metadata) {
    this.metadata = java.util.Objects.requireNonNull(metadata, "metadata");
  }

  /**
   * Takes a hold on the request for whoever accounts for its memory: from now on every slice of it
   * counts as a reference, and when the hold is let go ({@link #releaseHold()}) and the last slice
   * is cleared, {@code releaser} is told once. Call before making any batch of it.
   */
  public void hold(Releaser releaser) {
    this.releaser = releaser;
    REFERENCES.getAndAdd(this, 1);
    RefCheck.created(this);
  }

  /**
   * Marks the request as dropped without being delivered or refused for good (its exporter was
   * stopped with it still queued): a durable pipeline keeps such a request owed, to deliver it
   * after the restart. Sticky; a request any part of which was abandoned stays owed whole.
   */
  public void abandon() {
    abandoned = true;
  }

  /** Whether some part of the request was dropped at a shutdown ({@link #abandon}). */
  public boolean abandoned() {
    return abandoned;
  }

  /** Lets go of the hold taken by {@link #hold}. */
  public void releaseHold() {
    release(1);
  }

  @Internal
  public void retain(int count) {
    REFERENCES.getAndAdd(this, count);
  }

  @Internal
  public void release(int count) {
    int left = (int) REFERENCES.getAndAdd(this, -count) - count;
    if (left == 0) {
      Releaser r = releaser;
      if (r != null) {
        releaser = null;
        r.released(this);
      }
      RefCheck.freed(this);
    } else if (left < 0) {
      RefCheck.releasedTwice(this);
      throw new IllegalStateException("request released more often than retained");
    }
  }

  /** The request bytes the index points into; never written after indexing. */
  @Internal
  public byte[] source() {
    return source;
  }

  /** Is handed a request's bytes: {@code bytes[offset, offset + length)}, not to be changed. */
  @FunctionalInterface
  public interface SourceReader {
    long read(byte[] bytes, int offset, int length);
  }

  /**
   * Hands the request's bytes to {@code reader} (to write them to a log, say) without copying them;
   * returns what it returns. The bytes never change, but they are only the request's while it is
   * held: a reader that keeps them past the call must keep a hold too.
   */
  public long readSource(SourceReader reader) {
    return reader.read(source, sourceOffset, sourceLength);
  }

  /** The size of the request, in bytes. */
  public int sourceLength() {
    return sourceLength;
  }

  /**
   * Bytes this index keeps reachable: the request, the index's own tables and the metadata kept
   * with it. What a pipeline holding slices of this request accounts for.
   */
  public long retainedBytes() {
    return metadata.retainedBytes()
        + sourceLength
        + 4L * (resources.length + scopes.length + segments.length + items.length)
        + 4L * dataPoints.length
        + 8L * (resourceHashes.length + scopeHashes.length);
  }

  public int resourceCount() {
    return resourceHashes.length;
  }

  public int scopeCount() {
    return scopeHashes.length;
  }

  /** Spans, log records or metrics. */
  public int itemCount() {
    return itemCount;
  }

  /** Spans, log records, or metric data points: what batches are sized in. */
  public long unitCount() {
    return unitCount;
  }

  int offset() {
    return sourceOffset;
  }

  // Resource blocks.

  @Internal
  public int resourceSegFirst(int resource) {
    return resources[resource * R_COLUMNS + R_SEG_FIRST];
  }

  @Internal
  public int resourceSegCount(int resource) {
    return resources[resource * R_COLUMNS + R_SEG_COUNT];
  }

  int resourceHeaderBytes(int resource) {
    return resources[resource * R_COLUMNS + R_HEADER_BYTES];
  }

  @Internal
  public int resourceFirstScope(int resource) {
    return resources[resource * R_COLUMNS + R_FIRST_SCOPE];
  }

  @Internal
  public int resourceScopeCount(int resource) {
    return resources[resource * R_COLUMNS + R_SCOPE_COUNT];
  }

  long resourceHash(int resource) {
    return resourceHashes[resource];
  }

  // Scope blocks.

  @Internal
  public int scopeSegFirst(int scope) {
    return scopes[scope * S_COLUMNS + S_SEG_FIRST];
  }

  @Internal
  public int scopeSegCount(int scope) {
    return scopes[scope * S_COLUMNS + S_SEG_COUNT];
  }

  int scopeHeaderBytes(int scope) {
    return scopes[scope * S_COLUMNS + S_HEADER_BYTES];
  }

  @Internal
  public int scopeFirstItem(int scope) {
    return scopes[scope * S_COLUMNS + S_FIRST_ITEM];
  }

  @Internal
  public int scopeItemCount(int scope) {
    return scopes[scope * S_COLUMNS + S_ITEM_COUNT];
  }

  int scopeResource(int scope) {
    return scopes[scope * S_COLUMNS + S_RESOURCE];
  }

  @Internal
  public boolean scopeContiguous(int scope) {
    return scopes[scope * S_COLUMNS + S_CONTIGUOUS] != 0;
  }

  long scopeHash(int scope) {
    return scopeHashes[scope];
  }

  // Header segments.

  @Internal
  public int segOffset(int segment) {
    return segments[segment * G_COLUMNS + G_OFFSET];
  }

  @Internal
  public int segLength(int segment) {
    return segments[segment * G_COLUMNS + G_LENGTH];
  }

  @Internal
  public int segField(int segment) {
    return segments[segment * G_COLUMNS + G_FIELD];
  }

  // Items.

  @Internal
  public int itemStart(int item) {
    return items[item * itemColumns + I_START];
  }

  @Internal
  public int itemEnd(int item) {
    return items[item * itemColumns + I_END];
  }

  /**
   * Whether item {@code item} is a span whose fields are all of the usual shapes: each attributes
   * field holds a key and then a value, each with a one-byte length, and nothing else.
   */
  @Internal
  public boolean commonSpan(int item) {
    return itemColumns == ITEM_COLUMNS && (items[item * ITEM_COLUMNS + I_MARKS] & COMMON_SPAN) != 0;
  }

  /** Units (spans, log records, data points) in the items before {@code item}. */
  @Internal
  public long unitsBefore(int item) {
    if (signal != Signal.METRICS) {
      return item;
    }
    return item == itemCount ? unitCount : items[item * METRIC_COLUMNS + M_UNITS_BEFORE];
  }

  /** Data points of a metric. */
  @Internal
  public int dataPointCount(int metric) {
    return (int) (unitsBefore(metric + 1) - unitsBefore(metric));
  }

  @Internal
  public int metric(int metric, int column) {
    return items[metric * METRIC_COLUMNS + column];
  }

  // Data points.

  @Internal
  public int dataPointStart(int dataPoint) {
    return dataPoints[dataPoint * D_COLUMNS + D_START];
  }

  @Internal
  public int dataPointEnd(int dataPoint) {
    return dataPoints[dataPoint * D_COLUMNS + D_END];
  }

  /**
   * The last item in {@code [from, to]} whose units start at or before {@code unit} (a unit
   * position counted from the request's start): where a cut at {@code unit} falls. Items without
   * data points before the cut stay before it. Direct for spans and log records; a binary search
   * over the metric rows.
   */
  @Internal
  public int lastItemStartingAtOrBefore(long unit, int from, int to) {
    if (signal != Signal.METRICS) {
      return (int) Math.min(unit, to);
    }
    int low = from;
    int high = to;
    while (low < high) {
      int mid = (low + high + 1) >>> 1;
      if (unitsBefore(mid) <= unit) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    return low;
  }

  // Edits.

  /**
   * Who accounts for the request's memory while it is held; null when it is not held. Public for
   * the durable pipelines' end, which keeps per-exporter progress on the releaser.
   */
  public Releaser account() {
    return releaser;
  }

  /**
   * Slices (plus the hold) that still refer to the request, read at one moment. Public for the
   * durable pipelines' end: with the references it holds itself, it tells whether any other part of
   * the collector still has some of the request.
   */
  public int references() {
    return references;
  }

  @Override
  public String toString() {
    return signal
        + " request: "
        + sourceLength
        + " bytes, "
        + resourceCount()
        + " resource blocks, "
        + scopeCount()
        + " scope blocks, "
        + itemCount
        + " items, "
        + unitCount
        + " "
        + signal.unitName();
  }
}
