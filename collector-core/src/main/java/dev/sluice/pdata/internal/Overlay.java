package dev.sluice.pdata.internal;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.internal.OtlpFields.MetricData;
import dev.sluice.pdata.internal.OtlpFields.ScopeBlock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The replacement bytes one batch wrote for one request: new items (or data points) and new
 * resource and scope headers, stored back to back in an array the overlay owns. Slices of the
 * request that see the replacements point to the overlay as well as to the request, and
 * reference-count both; when the last such slice is gone the overlay's bytes are given back to the
 * request's memory account.
 *
 * <p>A stored item is the whole field as the marshaler writes it (tag and length included); a
 * stored header is every field of the block's header, written before the block's children.
 *
 * <p>Written only by the batch that owns it ({@link #owner}); once slices of it move to another
 * batch nobody owns it any more, and the next edit of any of those batches edits a copy.
 */
public final class Overlay {
  private static final int NONE = -1;
  private static final byte[] EMPTY = new byte[0];
  private static final int[] NO_UNITS = new int[0];

  /** Doublings from the smallest storage to the largest array: how many arrays one may outgrow. */
  private static final int MAX_RETIRED = 24;

  /** The most the first storage takes for what the replacement of units projects. */
  static final int MAX_FIRST_PROJECTED_BYTES = 64 * 1024;

  final OtlpIndex index;
  public Batch owner;

  public byte[] bytes = EMPTY;
  public int size;
  // Storage outgrown in this visit: the visit's readers may still hold it, so it goes back to the
  // pool when the visit ends.
  private byte[][] retired;
  private int retiredCount;
  private final OtlpIndex.Releaser account;
  private long accountedBytes;

  // Per unit (span, log record or data point of the request): where its replacement lies and its
  // length, at 2 x unit and 2 x unit + 1 (unused: NONE). Taken at the first replaced unit, so an
  // overlay of header edits only keeps no table per unit.
  private final int unitCount;
  private int[] units = NO_UNITS;
  // Per unit: dropped (a set bit), so that a visit that drops units marks them instead of cutting
  // the slice; 32 units to an int. Taken at the first drop.
  private int[] dropped = NO_UNITS;
  private int droppedCount;
  // Per metric: a metric without data points that a metric-level visit dropped (one with points is
  // dropped by its points' bits). Taken at the first such drop.
  public boolean[] metricDropped;
  // Per metric: whether any of its data points or its header was replaced, or a point dropped (it
  // is then written point by point).
  public final boolean[] metricTouched;
  // Per metric: a replaced header, stored as a Metric message whose data member holds no points:
  // the metric's other fields from metricOffsets, then the data member, whose own fields (its
  // header) lie at dataHeaderOffsets.
  private final int[] metricOffsets;
  private final int[] metricHeadLengths;
  private final int[] dataHeaderOffsets;
  private final int[] dataHeaderLengths;
  private final int[] resourceOffsets;
  private final int[] resourceLengths;
  private final int[] resourceStamps;
  private final int[] scopeOffsets;
  private final int[] scopeLengths;
  private final int[] scopeStamps;

  private static final VarHandle REFERENCES;
  private volatile int references;
  private boolean discarded;

  static {
    try {
      REFERENCES = MethodHandles.lookup().findVarHandle(Overlay.class, "references", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  public Overlay(OtlpIndex index, Batch owner) {
    this.index = index;
    this.owner = owner;
    this.account = index.account();
    int units = (int) index.unitCount();
    unitCount = units;
    boolean metrics = index.signal() == Signal.METRICS;
    int metricCount = metrics ? index.itemCount() : 0;
    metricTouched = metrics ? new boolean[metricCount] : null;
    // Spans and log records share one empty table for the metric columns.
    metricOffsets = metrics ? filled(metricCount) : NO_UNITS;
    metricHeadLengths = metrics ? new int[metricCount] : NO_UNITS;
    dataHeaderOffsets = metrics ? new int[metricCount] : NO_UNITS;
    dataHeaderLengths = metrics ? new int[metricCount] : NO_UNITS;
    resourceOffsets = filled(index.resourceCount());
    resourceLengths = new int[index.resourceCount()];
    resourceStamps = new int[index.resourceCount()];
    scopeOffsets = filled(index.scopeCount());
    scopeLengths = new int[index.scopeCount()];
    scopeStamps = new int[index.scopeCount()];
    account(tableBytes());
    if (account != null) {
      // Tracked like its request: only what is held for a memory account must be released.
      RefCheck.created(this);
    }
  }

  private static int[] filled(int length) {
    int[] table = new int[length];
    Arrays.fill(table, NONE);
    return table;
  }

  private long tableBytes() {
    long ints = 3L * resourceOffsets.length + 3L * scopeOffsets.length + 4L * metricOffsets.length;
    return 4 * ints + (metricTouched == null ? 0 : metricTouched.length);
  }

  // Reference counting: one reference per slice that points here.

  void retain() {
    REFERENCES.getAndAdd(this, 1);
  }

  void release() {
    int left = (int) REFERENCES.getAndAdd(this, -1) - 1;
    if (left == 0) {
      free();
    } else if (left < 0) {
      RefCheck.releasedTwice(this);
      throw new IllegalStateException("replacement bytes released more often than retained");
    }
  }

  int references() {
    return references;
  }

  /** Frees an overlay that no slice came to point to (every item it replaced was dropped). */
  void discardIfUnused() {
    if (references == 0) {
      free();
    }
  }

  /**
   * Gives the storage back to the pool: no slice sees these replacements any more. The overlay is
   * then empty, with no replacement: a visit that dropped every slice of it and then points another
   * slice of the request here (its last edit of that request) writes into fresh storage, and every
   * later free gives that back too.
   */
  private void free() {
    returnRetired();
    if (bytes != EMPTY) {
      StoragePool.giveBytes(bytes);
      bytes = EMPTY;
    }
    if (units != NO_UNITS) {
      StoragePool.giveInts(units);
      units = NO_UNITS;
    }
    if (dropped != NO_UNITS) {
      StoragePool.giveInts(dropped);
      dropped = NO_UNITS;
    }
    droppedCount = 0;
    if (metricDropped != null) {
      Arrays.fill(metricDropped, false);
    }
    size = 0;
    Arrays.fill(resourceOffsets, NONE);
    Arrays.fill(scopeOffsets, NONE);
    Arrays.fill(metricOffsets, NONE);
    if (metricTouched != null) {
      Arrays.fill(metricTouched, false);
    }
    account(-accountedBytes);
    if (!discarded) {
      discarded = true;
      RefCheck.freed(this);
    }
  }

  /** The visit that wrote here ended: storage it outgrew is read by nobody now. */
  void endVisit() {
    returnRetired();
  }

  private void returnRetired() {
    for (int i = 0; i < retiredCount; i++) {
      StoragePool.giveBytes(retired[i]);
      retired[i] = null;
    }
    retiredCount = 0;
  }

  private void account(long deltaBytes) {
    accountedBytes += deltaBytes;
    if (account != null && deltaBytes != 0) {
      account.editBytesChanged(index, deltaBytes);
    }
  }

  public byte[] bytes() {
    return bytes;
  }

  /** Bytes the overlay holds for its account: its tables and its replacement storage. */
  long accountedBytes() {
    return accountedBytes;
  }

  // Writing replacements.

  /** Appends {@code payload} framed as a length-delimited field; returns where it starts. */
  public int appendField(int fieldNumber, byte[] payload, int offset, int length) {
    int tag = WireType.tag(fieldNumber, WireType.LEN);
    int framed = Varint.size32(tag) + Varint.size32(length) + length;
    int start = reserve(framed);
    int p = putVarint(start, tag);
    p = putVarint(p, length);
    System.arraycopy(payload, offset, bytes, p, length);
    return start;
  }

  private int reserve(int length) {
    int start = size;
    int needed = start + length;
    if (needed < 0) {
      throw new IllegalStateException("replacements larger than 2 GiB");
    }
    if (needed > bytes.length) {
      grow(needed);
    }
    size = needed;
    return start;
  }

  /** Moves to storage of at least twice the size (or {@code needed}), taken from the pool. */
  private void grow(int needed) {
    grow(needed, 0);
  }

  /**
   * Moves to storage of at least twice the size, {@code needed} and {@code projectedBytes}, taken
   * from the pool.
   */
  private void grow(int needed, long projectedBytes) {
    long wanted = Math.max(projectedBytes, 2L * bytes.length);
    int capacity =
        StoragePool.capacityFor(Math.max(needed, (int) Math.min(Integer.MAX_VALUE - 8, wanted)));
    byte[] grown = StoragePool.takeBytes(capacity);
    System.arraycopy(bytes, 0, grown, 0, size);
    account(grown.length - bytes.length);
    if (bytes != EMPTY) {
      if (retired == null) {
        retired = new byte[MAX_RETIRED][];
      }
      if (retiredCount < retired.length) {
        retired[retiredCount++] = bytes;
      }
    }
    bytes = grown;
  }

  private int putVarint(int p, int value) {
    while ((value & ~0x7F) != 0) {
      bytes[p++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    bytes[p++] = (byte) value;
    return p;
  }

  /** The per-unit tables, made at the first unit replaced (and counted then). */
  private void ensureUnitTables() {
    if (units == NO_UNITS && unitCount > 0) {
      units = StoragePool.takeInts(2 * unitCount);
      Arrays.fill(units, 0, 2 * unitCount, NONE);
      account(4L * units.length);
    }
  }

  /** Replaces a span or log record ({@code unit} is its item), or a data point of a metric. */
  void replaceUnit(int unit, int metric, byte[] payload, int offset, int length) {
    int payloadStart = reserveUnit(unit, metric, length);
    System.arraycopy(payload, offset, bytes, payloadStart, length);
  }

  /**
   * Replaces a unit as {@link #replaceUnit} does with a payload of {@code length} bytes that the
   * caller writes into {@link #bytes()} at the returned offset, before anything else is stored: the
   * message is then written once, straight into the storage.
   */
  public int reserveUnit(int unit, int metric, int length) {
    ensureUnitTables();
    int field = metric < 0 ? ScopeBlock.ITEMS : MetricData.DATA_POINTS;
    int tag = WireType.tag(field, WireType.LEN);
    int framed = Varint.size32(tag) + Varint.size32(length) + length;
    long needed = (long) size + framed;
    if (needed > bytes.length && needed <= Integer.MAX_VALUE) {
      grow((int) needed, projectedBytes(unit, (int) needed));
    }
    int start = reserve(framed);
    int payloadStart = putVarint(putVarint(start, tag), length);
    units[2 * unit] = start;
    units[2 * unit + 1] = framed;
    if (metric >= 0) {
      metricTouched[metric] = true;
    }
    return payloadStart;
  }

  /**
   * What the replacements of the request's units will take if the units after {@code unit} are
   * replaced as densely as those up to it were ({@code neededBytes} so far): a visit that edits
   * every unit then takes its storage once or twice instead of doubling up from the smallest. The
   * first storage takes no more than {@link #MAX_FIRST_PROJECTED_BYTES}, so that a visit that edits
   * one unit early in a large request does not hold storage for all of them; later ones no more
   * than the request's own size.
   */
  private long projectedBytes(int unit, int neededBytes) {
    long projected = (long) neededBytes * unitCount / (unit + 1);
    long cap = bytes == EMPTY ? MAX_FIRST_PROJECTED_BYTES : index.sourceLength();
    return Math.min(projected, cap);
  }

  /**
   * Replaces a metric's header with the {@code Metric} message stored from {@code start}: {@code
   * headLength} bytes of its other fields, then its data member, whose own fields are the {@code
   * dataHeaderLength} bytes at {@code dataHeaderStart} (up to the end of what was stored).
   */
  public void setMetricHeader(int metric, int start, int headLength, int dataHeaderStart) {
    metricOffsets[metric] = start;
    metricHeadLengths[metric] = headLength;
    dataHeaderOffsets[metric] = dataHeaderStart;
    dataHeaderLengths[metric] = size - dataHeaderStart;
    metricTouched[metric] = true;
  }

  /** Appends the tag and length of a length-delimited field whose payload follows. */
  public void appendFieldHeader(int fieldNumber, int length) {
    int tag = WireType.tag(fieldNumber, WireType.LEN);
    int start = reserve(Varint.size32(tag) + Varint.size32(length));
    putVarint(putVarint(start, tag), length);
  }

  /** Appends raw bytes (a header field copied as it was). */
  public void appendRaw(byte[] source, int offset, int length) {
    int start = reserve(length);
    System.arraycopy(source, offset, bytes, start, length);
  }

  public int size() {
    return size;
  }

  public void setResource(int resource, int start, int stamp) {
    resourceOffsets[resource] = start;
    resourceLengths[resource] = size - start;
    resourceStamps[resource] = stamp;
  }

  public void setScope(int scope, int start, int stamp) {
    scopeOffsets[scope] = start;
    scopeLengths[scope] = size - start;
    scopeStamps[scope] = stamp;
  }

  // Dropping units.

  private static final int BITS_SHIFT = 5;
  private static final int BITS_MASK = Integer.SIZE - 1;

  /**
   * Drops a span or log record ({@code unit} is its item), or a data point of {@code metric} (-1
   * for spans and log records): the slices that see this overlay no longer hold it.
   */
  void dropUnit(int unit, int metric) {
    markDropped(unit);
    if (metric >= 0) {
      metricTouched[metric] = true;
    }
  }

  private void markDropped(int unit) {
    if (dropped == NO_UNITS) {
      int words = (unitCount + BITS_MASK) >>> BITS_SHIFT;
      dropped = StoragePool.takeInts(words);
      // A pooled table holds what its last user wrote.
      Arrays.fill(dropped, 0);
      account(4L * dropped.length);
    }
    int bit = 1 << (unit & BITS_MASK);
    int word = unit >>> BITS_SHIFT;
    if ((dropped[word] & bit) == 0) {
      dropped[word] |= bit;
      droppedCount++;
    }
  }

  /** Drops a metric without data points (one with points is dropped by dropping its points). */
  void dropMetric(int metric) {
    if (metricDropped == null) {
      metricDropped = new boolean[metricTouched.length];
      account(metricDropped.length);
    }
    metricDropped[metric] = true;
    metricTouched[metric] = true;
  }

  /** Whether a unit, or a metric without points, was dropped. */
  public boolean dropsAnything() {
    return droppedCount > 0 || metricDropped != null;
  }

  public boolean metricDropped(int metric) {
    return metricDropped != null && metricDropped[metric];
  }

  /** Whether any unit was dropped (the tables below are then worth a look). */
  public boolean dropsAny() {
    return droppedCount > 0;
  }

  /** Whether some unit's bytes are replaced here. */
  boolean replacesUnits() {
    return units != NO_UNITS;
  }

  public boolean unitDropped(int unit) {
    return droppedCount > 0 && (dropped[unit >>> BITS_SHIFT] & (1 << (unit & BITS_MASK))) != 0;
  }

  /** Dropped units in {@code [fromUnit, toUnit)}. */
  public int droppedIn(int fromUnit, int toUnit) {
    if (droppedCount == 0 || fromUnit >= toUnit) {
      return 0;
    }
    int firstWord = fromUnit >>> BITS_SHIFT;
    int lastWord = (toUnit - 1) >>> BITS_SHIFT;
    int firstMask = -1 << (fromUnit & BITS_MASK);
    int lastMask = -1 >>> (BITS_MASK - ((toUnit - 1) & BITS_MASK));
    if (firstWord == lastWord) {
      return Integer.bitCount(dropped[firstWord] & firstMask & lastMask);
    }
    int count = Integer.bitCount(dropped[firstWord] & firstMask);
    for (int w = firstWord + 1; w < lastWord; w++) {
      count += Integer.bitCount(dropped[w]);
    }
    return count + Integer.bitCount(dropped[lastWord] & lastMask);
  }

  /** The first dropped unit in {@code [fromUnit, toUnit)}, or {@code toUnit} when there is none. */
  int nextDropped(int fromUnit, int toUnit) {
    if (droppedCount == 0) {
      return toUnit;
    }
    return nextBit(fromUnit, toUnit, 0);
  }

  /** The first unit in {@code [fromUnit, toUnit)} not dropped, or {@code toUnit}. */
  int nextKept(int fromUnit, int toUnit) {
    if (droppedCount == 0) {
      return Math.min(fromUnit, toUnit);
    }
    return nextBit(fromUnit, toUnit, -1);
  }

  /** The first unit from {@code fromUnit} whose bit differs from {@code invert}'s, below toUnit. */
  private int nextBit(int fromUnit, int toUnit, int invert) {
    if (fromUnit >= toUnit) {
      return toUnit;
    }
    int w = fromUnit >>> BITS_SHIFT;
    int word = (dropped[w] ^ invert) & (-1 << (fromUnit & BITS_MASK));
    int lastWord = (toUnit - 1) >>> BITS_SHIFT;
    while (word == 0) {
      if (++w > lastWord) {
        return toUnit;
      }
      word = dropped[w] ^ invert;
    }
    int unit = (w << BITS_SHIFT) + Integer.numberOfTrailingZeros(word);
    return Math.min(unit, toUnit);
  }

  /**
   * The unit just after the {@code kept}-th unit from {@code fromUnit} that is not dropped, for
   * {@code kept >= 1} not more than there are before the table's end.
   */
  int afterKept(int fromUnit, long kept) {
    if (droppedCount == 0) {
      return (int) (fromUnit + kept);
    }
    long remaining = kept;
    int unit = fromUnit;
    // Whole words first, then bit by bit within the last one.
    while ((unit & BITS_MASK) != 0 && remaining > 0) {
      if (!unitDropped(unit)) {
        remaining--;
      }
      unit++;
    }
    while (remaining > 0) {
      int keptHere = Integer.SIZE - Integer.bitCount(dropped[unit >>> BITS_SHIFT]);
      if (keptHere >= remaining) {
        break;
      }
      remaining -= keptHere;
      unit += Integer.SIZE;
    }
    while (remaining > 0) {
      if (!unitDropped(unit)) {
        remaining--;
      }
      unit++;
    }
    return unit;
  }

  // Reading replacements.

  public int unitOffset(int unit) {
    return units == NO_UNITS ? NONE : units[2 * unit];
  }

  public int unitLength(int unit) {
    return units[2 * unit + 1];
  }

  public boolean metricTouched(int metric) {
    return metricTouched[metric];
  }

  /** Where the metric's replaced header (a Metric message without points) starts, or -1. */
  public int metricOffset(int metric) {
    return metricOffsets == null || metric >= metricOffsets.length ? NONE : metricOffsets[metric];
  }

  /** Bytes of the replaced header's fields other than the data member. */
  public int metricHeadLength(int metric) {
    return metricHeadLengths[metric];
  }

  /** Where the replaced data member's own fields start (they run to the end of the header). */
  public int dataHeaderOffset(int metric) {
    return dataHeaderOffsets[metric];
  }

  public int dataHeaderLength(int metric) {
    return dataHeaderLengths[metric];
  }

  /** Bytes of the whole replaced header message, data member included. */
  public int metricLength(int metric) {
    return dataHeaderOffsets[metric] + dataHeaderLengths[metric] - metricOffsets[metric];
  }

  public int resourceOffset(int resource) {
    return resourceOffsets[resource];
  }

  public int resourceLength(int resource) {
    return resourceLengths[resource];
  }

  public boolean resourceStamped(int resource, int stamp) {
    return resourceOffsets[resource] != NONE && resourceStamps[resource] == stamp;
  }

  public int scopeOffset(int scope) {
    return scopeOffsets[scope];
  }

  public int scopeLength(int scope) {
    return scopeLengths[scope];
  }

  public boolean scopeStamped(int scope, int stamp) {
    return scopeOffsets[scope] != NONE && scopeStamps[scope] == stamp;
  }

  /**
   * Copies into this overlay what {@code other} holds for the units and blocks of {@code slice}:
   * the slice is about to point here instead. Replacements this overlay already has win.
   */
  void absorb(Overlay other, Slice slice) {
    int resource = slice.resource();
    if (resourceOffsets[resource] == NONE && other.resourceOffsets[resource] != NONE) {
      int start = size;
      appendRaw(other.bytes, other.resourceOffsets[resource], other.resourceLengths[resource]);
      setResource(resource, start, 0);
    }
    int scope = slice.scope();
    if (scope < 0) {
      return;
    }
    if (scopeOffsets[scope] == NONE && other.scopeOffsets[scope] != NONE) {
      int start = size;
      appendRaw(other.bytes, other.scopeOffsets[scope], other.scopeLengths[scope]);
      setScope(scope, start, 0);
    }
    int firstUnit = (int) (index.unitsBefore(slice.itemFrom()) + slice.pointFrom());
    int endUnit = (int) (index.unitsBefore(slice.itemTo()) + slice.pointTo());
    if (other.droppedCount > 0) {
      for (int unit = other.nextDropped(firstUnit, endUnit);
          unit < endUnit;
          unit = other.nextDropped(unit + 1, endUnit)) {
        markDropped(unit);
      }
    }
    for (int unit = firstUnit; other.units != NO_UNITS && unit < endUnit; unit++) {
      if (other.unitOffset(unit) != NONE && unitOffset(unit) == NONE) {
        ensureUnitTables();
        int start = size;
        appendRaw(other.bytes, other.unitOffset(unit), other.unitLength(unit));
        units[2 * unit] = start;
        units[2 * unit + 1] = size - start;
      }
    }
    if (metricTouched != null) {
      int lastItem = Math.min(slice.itemTo(), index.itemCount() - 1);
      for (int metric = slice.itemFrom(); metric <= lastItem; metric++) {
        metricTouched[metric] |= other.metricTouched[metric];
        if (other.metricDropped(metric)) {
          dropMetric(metric);
        }
        if (metricOffsets[metric] == NONE && other.metricOffsets[metric] != NONE) {
          int start = size;
          appendRaw(other.bytes, other.metricOffsets[metric], other.metricLength(metric));
          int shift = start - other.metricOffsets[metric];
          setMetricHeader(
              metric,
              start,
              other.metricHeadLengths[metric],
              other.dataHeaderOffsets[metric] + shift);
        }
      }
    }
  }
}
