package dev.sluice.connector.servicegraph;

import java.util.ArrayDeque;

/**
 * The open edges, at most {@code maxItems}: found by key in a hash table (open addressing, linear
 * probing, deletion by shifting back), and kept in a list oldest first. Every edge lives for the
 * same ttl, so the oldest is also the first to expire, as in the Collector's store. Edges taken out
 * are kept for reuse, so a steady stream of spans allocates no edges once the store has been full
 * once; the table and the spare edges are bounded by {@code maxItems}.
 *
 * <p>Not thread-safe: the connector calls it under its lock.
 */
final class EdgeStore {
  private final int maxItems;
  private final int dimensions;
  private final int peerAttributes;
  private final ArrayDeque<Edge> spare = new ArrayDeque<>();

  private Edge[] slots = new Edge[16];
  private int size;
  private Edge oldest;
  private Edge newest;

  EdgeStore(int maxItems, int dimensions, int peerAttributes) {
    this.maxItems = maxItems;
    this.dimensions = dimensions;
    this.peerAttributes = peerAttributes;
  }

  int size() {
    return size;
  }

  boolean full() {
    return size >= maxItems;
  }

  /** The edge of that key, or null. */
  Edge find(long traceIdHigh, long traceIdLow, long spanId) {
    int mask = slots.length - 1;
    int i = slot(traceIdHigh, traceIdLow, spanId) & mask;
    Edge e;
    while ((e = slots[i]) != null) {
      if (e.spanId == spanId && e.traceIdLow == traceIdLow && e.traceIdHigh == traceIdHigh) {
        return e;
      }
      i = (i + 1) & mask;
    }
    return null;
  }

  /** An edge to fill in, spare or new; {@link #add} it or {@link #release} it. */
  Edge take(long traceIdHigh, long traceIdLow, long spanId, long expiresNanos) {
    Edge e = spare.pollFirst();
    if (e == null) {
      e = new Edge(dimensions, peerAttributes);
    }
    e.reset(traceIdHigh, traceIdLow, spanId, expiresNanos);
    return e;
  }

  /** Adds an edge (whose key is not held) as the newest; the caller checked {@link #full}. */
  void add(Edge edge) {
    if (2 * (size + 1) > slots.length) {
      grow();
    }
    place(edge);
    size++;
    edge.older = newest;
    edge.newer = null;
    if (newest != null) {
      newest.newer = edge;
    } else {
      oldest = edge;
    }
    newest = edge;
  }

  /** The oldest edge, or null. */
  Edge oldest() {
    return oldest;
  }

  /** Takes a held edge out and keeps it for reuse. */
  void remove(Edge edge) {
    unplace(edge);
    size--;
    if (edge.older != null) {
      edge.older.newer = edge.newer;
    } else {
      oldest = edge.newer;
    }
    if (edge.newer != null) {
      edge.newer.older = edge.older;
    } else {
      newest = edge.older;
    }
    release(edge);
  }

  /** Keeps an edge that is not held for reuse, up to as many as the store holds. */
  void release(Edge edge) {
    edge.older = null;
    edge.newer = null;
    if (spare.size() < maxItems) {
      spare.addFirst(edge);
    }
  }

  private void place(Edge edge) {
    int mask = slots.length - 1;
    int i = slot(edge.traceIdHigh, edge.traceIdLow, edge.spanId) & mask;
    while (slots[i] != null) {
      i = (i + 1) & mask;
    }
    slots[i] = edge;
  }

  private void unplace(Edge edge) {
    int mask = slots.length - 1;
    int i = slot(edge.traceIdHigh, edge.traceIdLow, edge.spanId) & mask;
    while (slots[i] != edge) {
      i = (i + 1) & mask;
    }
    // Shift back the entries after the gap that would no longer be found past it.
    int gap = i;
    int j = i;
    while (true) {
      j = (j + 1) & mask;
      Edge e = slots[j];
      if (e == null) {
        break;
      }
      int home = slot(e.traceIdHigh, e.traceIdLow, e.spanId) & mask;
      // e may fill the gap when its home is not cyclically in (gap, j].
      boolean homeAfterGap = gap <= j ? (gap < home && home <= j) : (gap < home || home <= j);
      if (!homeAfterGap) {
        slots[gap] = e;
        gap = j;
      }
    }
    slots[gap] = null;
  }

  private void grow() {
    Edge[] old = slots;
    slots = new Edge[old.length * 2];
    for (Edge e : old) {
      if (e != null) {
        place(e);
      }
    }
  }

  private static int slot(long traceIdHigh, long traceIdLow, long spanId) {
    long h = (spanId ^ traceIdLow * 0x9E3779B97F4A7C15L) + traceIdHigh;
    h *= 0xC2B2AE3D27D4EB4FL;
    return (int) (h ^ (h >>> 32));
  }
}
