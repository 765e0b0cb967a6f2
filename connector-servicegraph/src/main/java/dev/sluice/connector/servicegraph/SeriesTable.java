package dev.sluice.connector.servicegraph;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The series, in the order they were made, at most {@code maxSeries} of them: an edge whose key is
 * not held once the table is full is counted into the one overflow series instead (which carries
 * only {@code otel.metric.overflow=true}), and counted in {@link #overflowEdges()}. A series that
 * counts no edge for 15 minutes is forgotten on the next cleanup, as in the Collector.
 *
 * <p>Not thread-safe: the connector calls it under its lock.
 */
final class SeriesTable {
  static final long STALE_NANOS = 15L * 60 * 1_000_000_000L;

  private final int maxSeries;
  private final double[] bounds;
  private final int exponentialMaxSize;
  private final Map<Series.Key, Series> byKey = new HashMap<>();
  private final List<Series> ordered = new ArrayList<>();
  private Series overflow;
  private long overflowEdges;

  SeriesTable(int maxSeries, double[] bounds, int exponentialMaxSize) {
    this.maxSeries = maxSeries;
    this.bounds = bounds;
    this.exponentialMaxSize = exponentialMaxSize;
  }

  /** Counts one complete edge into its series. */
  void record(Series.Key key, boolean failed, double server, double client, long nowNanos) {
    Series series = byKey.get(key);
    if (series == null) {
      if (byKey.size() < maxSeries) {
        series = new Series(key, bounds, exponentialMaxSize);
        byKey.put(key, series);
        ordered.add(series);
      } else {
        if (overflow == null) {
          overflow = new Series(Series.OVERFLOW, bounds, exponentialMaxSize);
          ordered.add(overflow);
        }
        overflowEdges++;
        series = overflow;
      }
    }
    series.lastUpdatedNanos = nowNanos;
    series.requests++;
    if (failed) {
      series.failedRequests++;
    }
    series.server.record(server);
    series.client.record(client);
  }

  /** Forgets the series that counted nothing for 15 minutes. */
  void removeStale(long nowNanos) {
    ordered.removeIf(
        s -> {
          if (nowNanos - s.lastUpdatedNanos <= STALE_NANOS) {
            return false;
          }
          if (s == overflow) {
            overflow = null;
          } else {
            byKey.remove(s.key);
          }
          return true;
        });
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
