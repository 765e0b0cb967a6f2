package dev.sluice.connector.servicegraph;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The series, in the order they were made, found by the hash of an edge's labels (open addressing,
 * linear probing), at most {@code maxSeries} of them: an edge whose key is not held once the table
 * is full is counted into the one overflow series instead (which carries only {@code
 * otel.metric.overflow=true}), and counted in {@link #overflowEdges()}. A series that counts no
 * edge for 15 minutes is forgotten on the next cleanup, as in the Collector.
 *
 * <p>Not thread-safe: the connector calls it under its lock.
 */
final class SeriesTable {
  static final long STALE_NANOS = 15L * 60 * 1_000_000_000L;

  private final int maxSeries;
  private final double[] bounds;
  private final int exponentialMaxSize;
  private final List<Series> ordered = new ArrayList<>();
  private Series[] slots = new Series[16];

  /** Series held other than the overflow one. */
  private int held;

  private Series overflow;
  private long overflowEdges;

  SeriesTable(int maxSeries, double[] bounds, int exponentialMaxSize) {
    this.maxSeries = maxSeries;
    this.bounds = bounds;
    this.exponentialMaxSize = exponentialMaxSize;
  }

  /**
   * Counts one complete edge into its series, found by the edge's labels without making a key;
   * {@code virtualNodeLabel}: whether {@code virtual_node} is one of them.
   */
  void record(Edge edge, boolean virtualNodeLabel, long nowNanos) {
    int hash = hash(edge, virtualNodeLabel);
    Series series = find(edge, virtualNodeLabel, hash);
    if (series == null) {
      if (held < maxSeries) {
        series = new Series(key(edge, virtualNodeLabel), hash, bounds, exponentialMaxSize);
        ordered.add(series);
        held++;
        place(series);
      } else {
        if (overflow == null) {
          overflow = new Series(Series.OVERFLOW, 0, bounds, exponentialMaxSize);
          ordered.add(overflow);
        }
        overflowEdges++;
        series = overflow;
      }
    }
    series.lastUpdatedNanos = nowNanos;
    series.requests++;
    if (edge.failed) {
      series.failedRequests++;
    }
    series.server.record(edge.serverLatencySeconds);
    series.client.record(edge.clientLatencySeconds);
  }

  private Series find(Edge edge, boolean virtualNodeLabel, int hash) {
    int mask = slots.length - 1;
    for (int i = hash & mask; slots[i] != null; i = (i + 1) & mask) {
      Series s = slots[i];
      if (s.hash == hash && matches(s.key, edge, virtualNodeLabel)) {
        return s;
      }
    }
    return null;
  }

  private void place(Series series) {
    if (2 * held > slots.length) {
      rehash(slots.length * 2);
      return;
    }
    int mask = slots.length - 1;
    int i = series.hash & mask;
    while (slots[i] != null) {
      i = (i + 1) & mask;
    }
    slots[i] = series;
  }

  private void rehash(int capacity) {
    slots = new Series[capacity];
    int mask = capacity - 1;
    for (Series s : ordered) {
      if (!s.overflow()) {
        int i = s.hash & mask;
        while (slots[i] != null) {
          i = (i + 1) & mask;
        }
        slots[i] = s;
      }
    }
  }

  static int hash(Edge edge, boolean virtualNodeLabel) {
    int h = edge.client.hashCode();
    h = 31 * h + edge.server.hashCode();
    h = 31 * h + edge.connectionType.hashCode();
    h = 31 * h + (edge.failed ? 1 : 0);
    for (int i = 0; i < edge.clientDimensions.length; i++) {
      h = 31 * h + Objects.hashCode(edge.clientDimensions[i]);
      h = 31 * h + Objects.hashCode(edge.serverDimensions[i]);
    }
    h = 31 * h + (virtualNodeLabel ? edge.virtualNode.hashCode() : -1);
    return h ^ (h >>> 16);
  }

  private static boolean matches(Series.Key key, Edge edge, boolean virtualNodeLabel) {
    if (key.failed() != edge.failed
        || !key.client().equals(edge.client)
        || !key.server().equals(edge.server)
        || !key.connectionType().equals(edge.connectionType)
        || !Objects.equals(key.virtualNode(), virtualNodeLabel ? edge.virtualNode : null)) {
      return false;
    }
    List<String> dimensions = key.dimensions();
    for (int i = 0; i < edge.clientDimensions.length; i++) {
      if (!Objects.equals(dimensions.get(2 * i), edge.clientDimensions[i])
          || !Objects.equals(dimensions.get(2 * i + 1), edge.serverDimensions[i])) {
        return false;
      }
    }
    return true;
  }

  private static Series.Key key(Edge edge, boolean virtualNodeLabel) {
    List<String> dimensions = List.of();
    int count = edge.clientDimensions.length;
    if (count > 0) {
      String[] values = new String[2 * count];
      for (int i = 0; i < count; i++) {
        values[2 * i] = edge.clientDimensions[i];
        values[2 * i + 1] = edge.serverDimensions[i];
      }
      dimensions = Arrays.asList(values);
    }
    return new Series.Key(
        edge.client,
        edge.server,
        edge.connectionType,
        edge.failed,
        dimensions,
        virtualNodeLabel ? edge.virtualNode : null);
  }

  /** Forgets the series that counted nothing for 15 minutes. */
  void removeStale(long nowNanos) {
    boolean removed =
        ordered.removeIf(
            s -> {
              if (nowNanos - s.lastUpdatedNanos <= STALE_NANOS) {
                return false;
              }
              if (s == overflow) {
                overflow = null;
              } else {
                held--;
              }
              return true;
            });
    if (removed) {
      int capacity = 16;
      while (capacity < 2 * held) {
        capacity *= 2;
      }
      rehash(capacity);
    }
  }

  int size() {
    return ordered.size();
  }

  Series get(int i) {
    return ordered.get(i);
  }

  /** Edges counted into the overflow series because the table was full. */
  long overflowEdges() {
    return overflowEdges;
  }

  boolean exponential() {
    return bounds == null;
  }

  double[] bounds() {
    return bounds;
  }
}
