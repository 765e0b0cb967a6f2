package dev.sluice.exporter.debug;

import java.util.concurrent.TimeUnit;

/**
 * Lets through the first {@code initial} outputs of each second, then one in {@code thereafter}, so
 * a busy pipeline does not flood the log. Not thread-safe; the exporter serializes calls.
 */
final class OutputSampler {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  private final int initial;
  private final int thereafter;
  private long windowStart = Long.MIN_VALUE;
  private long count;

  OutputSampler(int initial, int thereafter) {
    this.initial = initial;
    this.thereafter = thereafter;
  }

  boolean take(long nowNanos) {
    if (windowStart == Long.MIN_VALUE || nowNanos - windowStart >= SECOND) {
      windowStart = nowNanos;
      count = 0;
    }
    count++;
    return count <= initial || (count - initial) % thereafter == 0;
  }
}
