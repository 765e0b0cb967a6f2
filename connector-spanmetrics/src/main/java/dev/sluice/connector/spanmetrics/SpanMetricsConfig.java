package dev.sluice.connector.spanmetrics;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.GoDuration;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.Unsupported;
import dev.sluice.component.Validatable;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code spanmetrics} connector's configuration, with the OpenTelemetry Collector's keys and
 * defaults (contrib {@code spanmetricsconnector}).
 *
 * @param dimensions attributes added to every metric's data points, looked up in the span's
 *     attributes, then the resource's, then the default
 * @param callsDimensions more dimensions for the {@code calls} metric only
 * @param excludeDimensions default dimensions left out ({@code service.name}, {@code span.name},
 *     {@code span.kind}, {@code status.code}, {@code collector.instance.id})
 * @param dimensionsCacheSize the Collector's deprecated cache size: accepted and ignored
 * @param resourceMetricsCacheSize most resources aggregated at once
 * @param resourceMetricsKeyAttributes the resource attributes that tell resources apart (all when
 *     empty)
 * @param aggregationTemporality {@code AGGREGATION_TEMPORALITY_CUMULATIVE} or {@code
 *     AGGREGATION_TEMPORALITY_DELTA}
 * @param metricsFlushInterval how often the metrics are handed on
 * @param metricsExpiration a resource without spans for this long is emitted once more and
 *     forgotten (cumulative only); 0 never
 * @param seriesExpiration a series without spans for this long is emitted once more and forgotten
 *     (cumulative only); 0 never
 * @param metricTimestampCacheSize the Collector's bound on delta start times: accepted and ignored
 *     (start times are kept with their series here)
 * @param namespace prefix of the metric names, joined with a dot; empty for none
 * @param includeInstrumentationScope scope names whose spans' metrics carry the scope's name and
 *     version
 * @param aggregationCardinalityLimit most series per metric per resource; more go to one overflow
 *     series; 0 for no limit
 * @param addResourceAttributes the Collector's switch back to resource attributes on the metrics,
 *     which they always carry here (as in the Collector without its {@code
 *     connector.spanmetrics.excludeResourceMetrics} feature gate)
 * @param enableMetricsSamplingMethod adds {@code sampling.method} ({@code extrapolated} or {@code
 *     counted}) to the data points
 */
public record SpanMetricsConfig(
    List<Dimension> dimensions,
    List<Dimension> callsDimensions,
    List<String> excludeDimensions,
    Unsupported dimensionsCacheSize,
    int resourceMetricsCacheSize,
    List<String> resourceMetricsKeyAttributes,
    String aggregationTemporality,
    HistogramConfig histogram,
    Duration metricsFlushInterval,
    Duration metricsExpiration,
    Duration seriesExpiration,
    Unsupported metricTimestampCacheSize,
    String namespace,
    ExemplarsConfig exemplars,
    EventsConfig events,
    List<String> includeInstrumentationScope,
    int aggregationCardinalityLimit,
    boolean addResourceAttributes,
    boolean enableMetricsSamplingMethod)
    implements ComponentConfig {

  public static final String CUMULATIVE = "AGGREGATION_TEMPORALITY_CUMULATIVE";
  public static final String DELTA = "AGGREGATION_TEMPORALITY_DELTA";
  public static final String DEFAULT_NAMESPACE = "traces.span.metrics";

  /** The default dimensions, which configured dimensions may not repeat. */
  static final List<String> RESERVED =
      List.of("service.name", "span.name", "span.kind", "status.code", "collector.instance.id");

  public static final SpanMetricsConfig DEFAULT =
      new SpanMetricsConfig(
          List.of(),
          List.of(),
          List.of(),
          null,
          1000,
          List.of(),
          CUMULATIVE,
          HistogramConfig.DEFAULT,
          Duration.ofSeconds(60),
          Duration.ZERO,
          Duration.ZERO,
          null,
          DEFAULT_NAMESPACE,
          ExemplarsConfig.DEFAULT,
          EventsConfig.DEFAULT,
          List.of(),
          0,
          false,
          false);

  /**
   * A dimension: an attribute name, and the value used when neither the span nor its resource has
   * it (none: the dimension is left out of that data point).
   */
  public record Dimension(String name, String default_) implements Validatable {
    @Override
    public void validate(ConfigProblems problems) {
      if (name == null || name.isEmpty()) {
        problems.add("name", "missing required field \"name\"");
      }
    }
  }

  /**
   * The {@code duration} histogram.
   *
   * @param disable no duration metric
   * @param unit {@code ms} or {@code s}
   * @param explicit explicit bucket bounds (the default kind)
   * @param exponential an exponential histogram instead
   * @param dimensions more dimensions for the duration metric only
   */
  public record HistogramConfig(
      boolean disable,
      String unit,
      @OptionalSection ExplicitConfig explicit,
      @OptionalSection ExponentialConfig exponential,
      List<Dimension> dimensions)
      implements Validatable {
    public static final HistogramConfig DEFAULT =
        new HistogramConfig(false, "ms", null, null, List.of());

    @Override
    public void validate(ConfigProblems problems) {
      if (!"ms".equals(unit) && !"s".equals(unit)) {
        problems.add("unit", "must be \"ms\" or \"s\", was \"" + unit + "\"");
      }
      if (explicit != null && exponential != null) {
        problems.add("", "use either `explicit` or `exponential` buckets histogram, not both");
      }
    }
  }

  /** Explicit buckets: their upper bounds, as durations ({@code [2ms, 10ms, 1s]}). */
  public record ExplicitConfig(List<Duration> buckets) implements Validatable {
    @Override
    public void validate(ConfigProblems problems) {
      for (int i = 0; i < buckets.size(); i++) {
        Duration bound = buckets.get(i);
        if (bound.isNegative()) {
          problems.add(
              "buckets[" + i + "]", "must not be negative, was " + GoDuration.format(bound));
        } else if (i > 0 && bound.compareTo(buckets.get(i - 1)) <= 0) {
          problems.add(
              "buckets[" + i + "]",
              "bounds must increase: "
                  + GoDuration.format(bound)
                  + " follows "
                  + GoDuration.format(buckets.get(i - 1)));
        }
      }
    }
  }

  /** An exponential histogram of at most {@code max_size} buckets (0: 160). */
  public record ExponentialConfig(int maxSize) implements Validatable {
    public static final int DEFAULT_MAX_SIZE = 160;
    static final int MIN_SIZE = 2;
    static final int MAX_SIZE = 16384;

    @Override
    public void validate(ConfigProblems problems) {
      if (maxSize != 0 && (maxSize < MIN_SIZE || maxSize > MAX_SIZE)) {
        problems.add(
            "max_size",
            "must be 0 (for "
                + DEFAULT_MAX_SIZE
                + ") or from "
                + MIN_SIZE
                + " to "
                + MAX_SIZE
                + ", was "
                + maxSize);
      }
    }

    int effectiveMaxSize() {
      return maxSize == 0 ? DEFAULT_MAX_SIZE : maxSize;
    }
  }

  /** Exemplars: a span's trace and span IDs on the data points it counted. */
  public record ExemplarsConfig(boolean enabled, int maxPerDataPoint) implements Validatable {
    public static final ExemplarsConfig DEFAULT = new ExemplarsConfig(false, 5);

    @Override
    public void validate(ConfigProblems problems) {
      if (maxPerDataPoint < 0) {
        problems.add("max_per_data_point", "must not be negative, was " + maxPerDataPoint);
      }
    }
  }

  /** The {@code events} metric: span events counted by these dimensions and the common ones. */
  public record EventsConfig(boolean enabled, List<Dimension> dimensions) implements Validatable {
    public static final EventsConfig DEFAULT = new EventsConfig(false, List.of());

    @Override
    public void validate(ConfigProblems problems) {
      if (!enabled) {
        return;
      }
      if (dimensions.isEmpty()) {
        problems.add("dimensions", "no dimensions configured for events");
      }
    }
  }

  @Override
  public void validate(ConfigProblems problems) {
    Set<String> taken = new HashSet<>(RESERVED);
    duplicates(problems, "dimensions", dimensions, taken);
    for (Dimension d : dimensions) {
      taken.add(d.name());
    }
    duplicates(problems, "calls_dimensions", callsDimensions, taken);
    duplicates(problems, "histogram.dimensions", histogram.dimensions(), taken);
    if (events.enabled()) {
      duplicates(problems, "events.dimensions", events.dimensions(), taken);
    }
    if (resourceMetricsCacheSize < 1) {
      problems.add(
          "resource_metrics_cache_size", "must be at least 1, was " + resourceMetricsCacheSize);
    }
    if (!CUMULATIVE.equals(aggregationTemporality) && !DELTA.equals(aggregationTemporality)) {
      problems.add(
          "aggregation_temporality",
          "must be " + CUMULATIVE + " or " + DELTA + ", was \"" + aggregationTemporality + "\"");
    }
    if (metricsFlushInterval.isNegative() || metricsFlushInterval.isZero()) {
      problems.add(
          "metrics_flush_interval",
          "must be positive, was " + GoDuration.format(metricsFlushInterval));
    }
    if (metricsExpiration.isNegative()) {
      problems.add(
          "metrics_expiration",
          "must not be negative, was " + GoDuration.format(metricsExpiration));
    }
    if (seriesExpiration.isNegative()) {
      problems.add(
          "series_expiration", "must not be negative, was " + GoDuration.format(seriesExpiration));
    }
    if (aggregationCardinalityLimit < 0) {
      problems.add(
          "aggregation_cardinality_limit",
          "must not be negative (0 for no limit), was " + aggregationCardinalityLimit);
    }
  }

  /** Reports each dimension whose name is one of {@code taken} or repeats one before it. */
  private static void duplicates(
      ConfigProblems problems, String key, List<Dimension> list, Set<String> taken) {
    Set<String> seen = new HashSet<>(taken);
    for (int i = 0; i < list.size(); i++) {
      String name = list.get(i).name();
      if (name != null && !name.isEmpty() && !seen.add(name)) {
        problems.add(key + "[" + i + "].name", "duplicate dimension name " + name);
      }
    }
  }

  boolean delta() {
    return DELTA.equals(aggregationTemporality);
  }
}
