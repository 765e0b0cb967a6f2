package dev.sluice.processor.tailsampling;

/**
 * The trace IDs decided recently, one cache for the sampled and one for the others ({@code
 * decision_cache}): at most {@code size} IDs, the least recently used forgotten first, as the
 * Collector's caches. Keyed by the whole trace ID (the Collector keys by its last eight bytes only,
 * so two traces that share them share a decision). A size of 0 remembers nothing.
 *
 * <p>Not thread-safe: the processor uses it under its lock.
 */
final class DecisionCache {
  private record Key(long high, long low) {}

  private final int size;
  private final Lru<Key, Boolean> ids;

  DecisionCache(int size) {
    this.size = size;
    this.ids = new Lru<>(size);
  }

  boolean enabled() {
    return size > 0;
  }

  int size() {
    return ids.size();
  }

  void put(long high, long low) {
    if (size > 0) {
      ids.put(new Key(high, low), Boolean.TRUE);
    }
  }

  /** Whether the ID is remembered; a hit makes it the most recently used. */
  boolean contains(long high, long low) {
    return size > 0 && ids.get(new Key(high, low)) != null;
  }
}
