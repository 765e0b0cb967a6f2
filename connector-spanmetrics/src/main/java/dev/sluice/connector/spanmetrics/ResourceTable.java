package dev.sluice.connector.spanmetrics;

import java.util.Arrays;
import java.util.function.Predicate;

/**
 * The resources being aggregated, found by the hash and bytes of their identity, kept in the order
 * they were made. At most {@code capacity} are live; making one more evicts the least recently used
 * live one, which (as in the Collector's connector) stays until the next flush has emitted it and
 * is revived if its spans come back before that. Live and evicted together stay within twice the
 * capacity: {@link #room} tells a batch whether its new resources fit.
 */
final class ResourceTable {
  private final int capacity;
  private ResourceState[] slots = new ResourceState[16];
  private ResourceState[] ordered = new ResourceState[8];
  private int size;
  private int evicted;
  private long uses;

  ResourceTable(int capacity) {
    this.capacity = capacity;
  }

  /** Whether a resource has the identity {@code key[from, length)}; changes nothing. */
  boolean contains(KeyBuffer key, int from, long hash) {
    int mask = slots.length - 1;
    int i = (int) hash & mask;
    ResourceState found;
    while ((found = slots[i]) != null) {
      if (found.hash == hash && key.equalsRange(from, found.identity)) {
        return true;
      }
      i = (i + 1) & mask;
    }
    return false;
  }

  /** The resource whose identity is {@code key[from, length)}, or null; marks it used. */
  ResourceState find(KeyBuffer key, int from, long hash) {
    int mask = slots.length - 1;
    int i = (int) hash & mask;
    ResourceState found;
    while ((found = slots[i]) != null) {
      if (found.hash == hash && key.equalsRange(from, found.identity)) {
        if (found.evicted) {
          revive(found);
        }
        found.lastUse = ++uses;
        return found;
      }
      i = (i + 1) & mask;
    }
    return null;
  }

  /** Whether {@code more} new resources fit beside those held, evicted ones included. */
  boolean room(int more) {
    return size + more <= 2 * capacity;
  }

  int capacity() {
    return capacity;
  }

  /** Adds a new resource, evicting the least recently used live one when there are too many. */
  void add(ResourceState state) {
    if (size - evicted >= capacity) {
      evictLeastRecentlyUsed();
    }
    state.lastUse = ++uses;
    if (size == ordered.length) {
      ordered = Arrays.copyOf(ordered, size * 2);
    }
    ordered[size++] = state;
    if (2 * size > slots.length) {
      rehash(slots.length * 2);
    } else {
      place(state);
    }
  }

  private void revive(ResourceState state) {
    state.evicted = false;
    evicted--;
    if (size - evicted > capacity) {
      evictLeastRecentlyUsed();
    }
  }

  private void evictLeastRecentlyUsed() {
    ResourceState oldest = null;
    for (int i = 0; i < size; i++) {
      ResourceState s = ordered[i];
      if (!s.evicted && (oldest == null || s.lastUse < oldest.lastUse)) {
        oldest = s;
      }
    }
    if (oldest != null) {
      oldest.evicted = true;
      evicted++;
    }
  }

  private void place(ResourceState state) {
    int mask = slots.length - 1;
    int i = (int) state.hash & mask;
    while (slots[i] != null) {
      i = (i + 1) & mask;
    }
    slots[i] = state;
  }

  private void rehash(int newCapacity) {
    slots = new ResourceState[newCapacity];
    for (int i = 0; i < size; i++) {
      place(ordered[i]);
    }
  }

  int size() {
    return size;
  }

  int evictedCount() {
    return evicted;
  }

  ResourceState get(int i) {
    return ordered[i];
  }

  /** Forgets the resources {@code drop} accepts; keeps the order of the others. */
  void removeIf(Predicate<ResourceState> drop) {
    int kept = 0;
    for (int i = 0; i < size; i++) {
      ResourceState state = ordered[i];
      if (drop.test(state)) {
        if (state.evicted) {
          evicted--;
        }
      } else {
        ordered[kept++] = state;
      }
    }
    Arrays.fill(ordered, kept, size, null);
    size = kept;
    int slotCount = 16;
    while (slotCount < 2 * size) {
      slotCount *= 2;
    }
    rehash(slotCount);
  }
}
