package dev.sluice.processor.tailsampling;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A map that holds at most {@code maxEntries} and forgets its least recently used entry (a read
 * counts as a use) past them: the decision caches and the regular expressions' results. Not
 * thread-safe: the processor uses it under its lock.
 */
final class Lru<K, V> extends LinkedHashMap<K, V> {
  private static final long serialVersionUID = 1L;
  private final int maxEntries;

  Lru(int maxEntries) {
    super(16, 0.75f, true);
    this.maxEntries = maxEntries;
  }

  @Override
  protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
    return size() > maxEntries;
  }
}
