package dev.sluice.wal;

import java.util.Map;
import java.util.TreeMap;

/**
 * Which records one consumer is done with: every sequence below {@link #watermark()}, and the
 * ranges above it that finished out of order. Sequences are handed out in order and a consumer
 * finishes most nearly in order, so there are few ranges; each costs one entry whatever its length,
 * so a jump over any number of sequences (a gap the log never wrote) costs the same as one record.
 */
final class ConsumerProgress {
  private long watermark;
  // Done ranges above the watermark, start to end (exclusive), neither touching nor overlapping.
  private final TreeMap<Long, Long> done = new TreeMap<>();
  // Counts every change, so that the writer persists progress only when it moved.
  private long changes;

  ConsumerProgress(long watermark) {
    this.watermark = watermark;
  }

  synchronized long watermark() {
    return watermark;
  }

  /** Whether {@code sequence} is done. */
  synchronized boolean isDone(long sequence) {
    if (sequence < watermark) {
      return true;
    }
    Map.Entry<Long, Long> range = done.floorEntry(sequence);
    return range != null && sequence < range.getValue();
  }

  /** Marks {@code sequence} done; a sequence done before is ignored. */
  synchronized void markDone(long sequence) {
    if (sequence == watermark) {
      watermark++;
      changes++;
      absorb();
      return;
    }
    add(sequence, sequence + 1);
  }

  /** How many times the progress changed so far: it moved when this did. */
  synchronized long changes() {
    return changes;
  }

  /**
   * The lowest {@code max} done ranges above the watermark, as {@code [from, to)} pairs, for the
   * progress file.
   */
  synchronized long[] lowestRanges(int max) {
    int count = Math.min(max, done.size());
    long[] ranges = new long[2 * count];
    int at = 0;
    for (Map.Entry<Long, Long> range : done.entrySet()) {
      if (at == ranges.length) {
        break;
      }
      ranges[at++] = range.getKey();
      ranges[at++] = range.getValue();
    }
    return ranges;
  }

  /** Marks every sequence in {@code [from, to)} done. */
  synchronized void markRangeDone(long from, long to) {
    add(from, to);
  }

  /** Ranges finished out of order, not yet joined to the watermark. */
  synchronized int ranges() {
    return done.size();
  }

  private void add(long from, long to) {
    long start = Math.max(from, watermark);
    if (to <= start) {
      return;
    }
    changes++;
    long end = to;
    Map.Entry<Long, Long> before = done.floorEntry(start);
    if (before != null && before.getValue() >= start) {
      start = before.getKey();
      end = Math.max(end, before.getValue());
      done.remove(before.getKey());
    }
    Map.Entry<Long, Long> after;
    while ((after = done.ceilingEntry(start)) != null && after.getKey() <= end) {
      end = Math.max(end, after.getValue());
      done.remove(after.getKey());
    }
    if (start == watermark) {
      watermark = end;
      absorb();
    } else {
      done.put(start, end);
    }
  }

  /** Moves the watermark past a range that now starts at it. */
  private void absorb() {
    Map.Entry<Long, Long> first = done.firstEntry();
    if (first != null && first.getKey() <= watermark) {
      watermark = Math.max(watermark, first.getValue());
      done.remove(first.getKey());
    }
  }
}
