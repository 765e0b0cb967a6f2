package dev.sluice.connector.servicegraph;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.GoDuration;
import dev.sluice.component.Unsupported;
import dev.sluice.component.Validatable;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code servicegraph} connector's configuration, with the OpenTelemetry Collector's keys and
 * defaults (contrib {@code servicegraphconnector}), and one key of Sluice's own ({@code
 * max_series}).
 *
 * @param metricsExporter the Collector's deprecated exporter name: accepted and ignored
 * @param latencyHistogramBuckets upper bounds of the latency histograms' buckets; null (left out)
 *     for the Collector's default, from 2ms to 15s
 * @param exponentialHistogramMaxSize above 0: exponential latency histograms of at most this many
 *     buckets instead of explicit ones
 * @param dimensions span or resource attributes added to the metrics as {@code client_<name>} and
 *     {@code server_<name>}
 * @param store the open edges waiting for their other side
 * @param cacheLoop how often series without a request for 15 minutes are forgotten (not positive: a
 *     minute)
 * @param storeExpirationLoop how often expired edges are taken out of the store (not positive: two
 *     seconds)
 * @param virtualNodePeerAttributes client span attributes that name the server of an edge whose
 *     server never shows up (in order of priority); empty for no virtual nodes
 * @param virtualNodeExtraLabel adds the {@code virtual_node} attribute
 * @param metricsFlushInterval how often the metrics are handed on; 0 after every batch of spans
 * @param databaseNameAttributes attributes naming the database of a client span's database call (in
 *     order of priority); empty for {@code db.name}
 * @param metricsTimestampOffset subtracted from the data points' time
 * @param maxSeries Sluice's own bound on the series held: a new edge key past it counts into the
 *     one overflow series
 */
public record ServiceGraphConfig(
    Unsupported metricsExporter,
    List<Duration> latencyHistogramBuckets,
    int exponentialHistogramMaxSize,
    List<String> dimensions,
    StoreConfig store,
    Duration cacheLoop,
    Duration storeExpirationLoop,
    List<String> virtualNodePeerAttributes,
    boolean virtualNodeExtraLabel,
    Duration metricsFlushInterval,
    List<String> databaseNameAttributes,
    Duration metricsTimestampOffset,
    int maxSeries)
    implements ComponentConfig {

  /** The Collector's default peer attributes: {@code peer.service}, {@code db.name}, ... */
  static final List<String> DEFAULT_PEER_ATTRIBUTES =
      List.of("peer.service", "db.name", "db.system");

  static final List<String> DEFAULT_DATABASE_NAME_ATTRIBUTES = List.of("db.name");

  /** The Collector's default bucket bounds, in seconds. */
  static final double[] DEFAULT_BOUNDS_SECONDS = {
    0.002, 0.004, 0.006, 0.008, 0.01, 0.05, 0.1, 0.2, 0.4, 0.8, 1, 1.4, 2, 5, 10, 15
  };

  public static final int DEFAULT_MAX_SERIES = 10_000;

  public static final ServiceGraphConfig DEFAULT =
      new ServiceGraphConfig(
          null,
          null,
          0,
          List.of(),
          StoreConfig.DEFAULT,
          Duration.ofMinutes(1),
          Duration.ofSeconds(2),
          DEFAULT_PEER_ATTRIBUTES,
          false,
          Duration.ofSeconds(60),
          DEFAULT_DATABASE_NAME_ATTRIBUTES,
          Duration.ZERO,
          DEFAULT_MAX_SERIES);

  /**
   * The store of open edges.
   *
   * @param maxItems most edges held at once; a span that would open one more is dropped, and
   *     counted
   * @param ttl how long an edge waits for its other side
   */
  public record StoreConfig(int maxItems, Duration ttl) implements Validatable {
    public static final StoreConfig DEFAULT = new StoreConfig(1000, Duration.ofSeconds(2));

    @Override
    public void validate(ConfigProblems problems) {
      if (maxItems < 1) {
        problems.add("max_items", "must be at least 1, was " + maxItems);
      }
      if (ttl.isNegative()) {
        problems.add("ttl", "must not be negative, was " + GoDuration.format(ttl));
      }
    }
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (exponentialHistogramMaxSize < 0) {
      problems.add(
          "exponential_histogram_max_size",
          "can not be negative, was " + exponentialHistogramMaxSize);
    } else if (exponentialHistogramMaxSize == 1) {
      problems.add(
          "exponential_histogram_max_size",
          "must be 0 (explicit buckets) or at least 2, was " + exponentialHistogramMaxSize);
    }
    if (latencyHistogramBuckets != null && exponentialHistogramMaxSize > 0) {
      problems.add(
          "exponential_histogram_max_size",
          "use either `latency_histogram_buckets` or `exponential_histogram_max_size`");
    }
    if (latencyHistogramBuckets != null) {
      for (int i = 0; i < latencyHistogramBuckets.size(); i++) {
        Duration bound = latencyHistogramBuckets.get(i);
        if (bound.isNegative()) {
          problems.add(
              "latency_histogram_buckets[" + i + "]",
              "must not be negative, was " + GoDuration.format(bound));
        } else if (i > 0 && bound.compareTo(latencyHistogramBuckets.get(i - 1)) <= 0) {
          problems.add(
              "latency_histogram_buckets[" + i + "]",
              "bounds must increase: "
                  + GoDuration.format(bound)
                  + " follows "
                  + GoDuration.format(latencyHistogramBuckets.get(i - 1)));
        }
      }
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < dimensions.size(); i++) {
      String name = dimensions.get(i);
      if (name == null || name.isEmpty()) {
        problems.add("dimensions[" + i + "]", "must not be empty");
      } else if (!seen.add(name)) {
        problems.add("dimensions[" + i + "]", "duplicate dimension " + name);
      }
    }
    if (metricsFlushInterval.isNegative()) {
      problems.add(
          "metrics_flush_interval",
          "must not be negative (0 flushes after every batch), was "
              + GoDuration.format(metricsFlushInterval));
    }
    if (metricsTimestampOffset.isNegative()) {
      problems.add(
          "metrics_timestamp_offset",
          "must not be negative, was " + GoDuration.format(metricsTimestampOffset));
    }
    if (maxSeries < 1) {
      problems.add("max_series", "must be at least 1, was " + maxSeries);
    }
  }

  /** {@code cache_loop}, or a minute when it is not positive (as in Go). */
  long cacheLoopNanos() {
    return cacheLoop.isNegative() || cacheLoop.isZero()
        ? DEFAULT.cacheLoop.toNanos()
        : cacheLoop.toNanos();
  }

  /** {@code store_expiration_loop}, or two seconds when it is not positive (as in Go). */
  long storeExpirationLoopNanos() {
    return storeExpirationLoop.isNegative() || storeExpirationLoop.isZero()
        ? DEFAULT.storeExpirationLoop.toNanos()
        : storeExpirationLoop.toNanos();
  }

  /** The latency bucket bounds in seconds; null for exponential histograms. */
  double[] boundsSeconds() {
    if (exponentialHistogramMaxSize > 0) {
      return null;
    }
    if (latencyHistogramBuckets == null) {
      return DEFAULT_BOUNDS_SECONDS.clone();
    }
    double[] bounds = new double[latencyHistogramBuckets.size()];
    for (int i = 0; i < bounds.length; i++) {
      bounds[i] = latencyHistogramBuckets.get(i).toNanos() / 1e9;
    }
    return bounds;
  }

  /** The database name attributes, {@code db.name} when none are configured (as in Go). */
  List<String> effectiveDatabaseNameAttributes() {
    return databaseNameAttributes.isEmpty()
        ? DEFAULT_DATABASE_NAME_ATTRIBUTES
        : databaseNameAttributes;
  }
}
