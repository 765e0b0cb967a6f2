package dev.sluice.connector.spanmetrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import dev.sluice.pdata.Signal;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code spanmetrics} connector's keys, bound and validated from YAML as the collector does.
 */
class SpanMetricsConfigTest {
  static SpanMetricsConfig config(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(yaml, "spanmetrics.yaml", SpanMetricsConfig.class, SpanMetricsConfig.DEFAULT);
  }

  @Test
  void takesTheCollectorsDefaults() throws ConfigException {
    SpanMetricsConfig config = config("");

    assertThat(config.namespace()).isEqualTo("traces.span.metrics");
    assertThat(config.aggregationTemporality()).isEqualTo("AGGREGATION_TEMPORALITY_CUMULATIVE");
    assertThat(config.metricsFlushInterval()).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.metricsExpiration()).isZero();
    assertThat(config.seriesExpiration()).isZero();
    assertThat(config.resourceMetricsCacheSize()).isEqualTo(1000);
    assertThat(config.aggregationCardinalityLimit()).isZero();
    assertThat(config.histogram().unit()).isEqualTo("ms");
    assertThat(config.histogram().disable()).isFalse();
    assertThat(config.histogram().explicit()).isNull();
    assertThat(config.histogram().exponential()).isNull();
    assertThat(config.exemplars()).isEqualTo(new SpanMetricsConfig.ExemplarsConfig(false, 5));
    assertThat(config.events().enabled()).isFalse();
    assertThat(config.dimensions()).isEmpty();
    assertThat(config.excludeDimensions()).isEmpty();
    assertThat(config.addResourceAttributes()).isFalse();
  }

  @Test
  void bindsEveryKey() throws ConfigException {
    SpanMetricsConfig config =
        config(
            String.join(
                "\n",
                "histogram:",
                "  unit: s",
                "  explicit:",
                "    buckets: [100us, 1ms, 2ms, 6ms, 10ms, 100ms, 250ms]",
                "  dimensions:",
                "    - name: http.route",
                "dimensions:",
                "  - name: http.method",
                "    default: GET",
                "  - name: http.status_code",
                "calls_dimensions:",
                "  - name: peer.service",
                "exclude_dimensions: ['status.code']",
                "dimensions_cache_size: 1000",
                "resource_metrics_cache_size: 50",
                "resource_metrics_key_attributes: [service.name, telemetry.sdk.language]",
                "aggregation_temporality: AGGREGATION_TEMPORALITY_DELTA",
                "metrics_flush_interval: 15s",
                "metrics_expiration: 5m",
                "series_expiration: 1m",
                "metric_timestamp_cache_size: 100",
                "namespace: span.metrics",
                "exemplars:",
                "  enabled: true",
                "  max_per_data_point: 3",
                "events:",
                "  enabled: true",
                "  dimensions:",
                "    - name: exception.type",
                "include_instrumentation_scope: [io.opentelemetry.tomcat]",
                "aggregation_cardinality_limit: 2000",
                "add_resource_attributes: true",
                "enable_metrics_sampling_method: true"));

    assertThat(config.histogram().unit()).isEqualTo("s");
    assertThat(config.histogram().explicit().buckets())
        .containsExactly(
            Duration.ofNanos(100_000),
            Duration.ofMillis(1),
            Duration.ofMillis(2),
            Duration.ofMillis(6),
            Duration.ofMillis(10),
            Duration.ofMillis(100),
            Duration.ofMillis(250));
    assertThat(config.histogram().dimensions())
        .containsExactly(new SpanMetricsConfig.Dimension("http.route", null));
    assertThat(config.dimensions())
        .containsExactly(
            new SpanMetricsConfig.Dimension("http.method", "GET"),
            new SpanMetricsConfig.Dimension("http.status_code", null));
    assertThat(config.callsDimensions())
        .containsExactly(new SpanMetricsConfig.Dimension("peer.service", null));
    assertThat(config.excludeDimensions()).containsExactly("status.code");
    assertThat(config.dimensionsCacheSize()).isNotNull();
    assertThat(config.resourceMetricsCacheSize()).isEqualTo(50);
    assertThat(config.resourceMetricsKeyAttributes())
        .containsExactly("service.name", "telemetry.sdk.language");
    assertThat(config.delta()).isTrue();
    assertThat(config.metricsFlushInterval()).isEqualTo(Duration.ofSeconds(15));
    assertThat(config.metricsExpiration()).isEqualTo(Duration.ofMinutes(5));
    assertThat(config.seriesExpiration()).isEqualTo(Duration.ofMinutes(1));
    assertThat(config.namespace()).isEqualTo("span.metrics");
    assertThat(config.exemplars()).isEqualTo(new SpanMetricsConfig.ExemplarsConfig(true, 3));
    assertThat(config.events().dimensions())
        .containsExactly(new SpanMetricsConfig.Dimension("exception.type", null));
    assertThat(config.includeInstrumentationScope()).containsExactly("io.opentelemetry.tomcat");
    assertThat(config.aggregationCardinalityLimit()).isEqualTo(2000);
    assertThat(config.addResourceAttributes()).isTrue();
    assertThat(config.enableMetricsSamplingMethod()).isTrue();
  }

  @Test
  void anExponentialHistogramSectionTurnsItOnWithTheDefaultSize() throws ConfigException {
    SpanMetricsConfig config = config("histogram:\n  exponential:\n");

    assertThat(config.histogram().exponential()).isNotNull();
    assertThat(config.histogram().exponential().effectiveMaxSize()).isEqualTo(160);
    assertThat(config.histogram().explicit()).isNull();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "aggregation_temporality: DELTA|aggregation_temporality|AGGREGATION_TEMPORALITY_DELTA",
        "histogram: {unit: us}|histogram.unit|\"ms\" or \"s\"",
        "histogram: {explicit: {buckets: [1ms]}, exponential: {max_size: 10}}|histogram|either",
        "histogram: {explicit: {buckets: [10ms, 5ms]}}|histogram.explicit.buckets[1]|increase",
        "histogram: {explicit: {buckets: [-1ms]}}|histogram.explicit.buckets[0]|negative",
        "histogram: {exponential: {max_size: 1}}|histogram.exponential.max_size|from 2",
        "dimensions: [{name: span.name}]|dimensions[0].name|duplicate dimension name span.name",
        "dimensions: [{name: a}, {name: a}]|dimensions[1].name|duplicate dimension name a",
        "dimensions: [{default: x}]|dimensions[0].name|missing required field",
        "calls_dimensions: [{name: status.code}]|calls_dimensions[0].name|duplicate",
        "histogram: {dimensions: [{name: service.name}]}|histogram.dimensions[0].name|duplicate",
        "events: {enabled: true}|events.dimensions|no dimensions configured for events",
        "events: {enabled: true, dimensions: [{name: span.kind}]}|events.dimensions[0].name|dup",
        "metrics_flush_interval: 0s|metrics_flush_interval|positive",
        "metrics_expiration: -1s|metrics_expiration|negative",
        "series_expiration: -1s|series_expiration|negative",
        "aggregation_cardinality_limit: -1|aggregation_cardinality_limit|negative",
        "resource_metrics_cache_size: 0|resource_metrics_cache_size|at least 1",
        "exemplars: {max_per_data_point: -2}|exemplars.max_per_data_point|negative",
        "dimension: []|dimension|did you mean \"dimensions\"",
      })
  void reportsAnInvalidValueAtItsKeyAndLine(String yaml, String key, String message) {
    assertThatThrownBy(() -> config("namespace: x\n" + yaml))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e ->
                assertThat(e.problems())
                    .anySatisfy(
                        problem -> {
                          assertThat(problem.path()).isEqualTo(key);
                          assertThat(problem.message()).contains(message);
                          assertThat(problem.location().source()).isEqualTo("spanmetrics.yaml");
                          assertThat(problem.location().line()).isEqualTo(2);
                        }));
  }

  @Test
  void reportsEveryProblemAtOnceWithItsLine() {
    assertThatThrownBy(
            () ->
                config(
                    String.join(
                        "\n",
                        "aggregation_temporality: AGGREGATION_TEMPORALITY_UNSPECIFIED",
                        "histogram:",
                        "  unit: minutes",
                        "dimensions:",
                        "  - name: status.code",
                        "metrics_flush_interval: -5s")))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e -> {
              assertThat(e.problems())
                  .extracting(ConfigProblem::path)
                  .containsExactly(
                      "aggregation_temporality",
                      "histogram.unit",
                      "dimensions[0].name",
                      "metrics_flush_interval");
              assertThat(e.problems())
                  .extracting(p -> p.location().line())
                  .containsExactly(1, 3, 5, 6);
            });
  }

  @Test
  void theFactoryJoinsTracesToMetricsOnly() {
    SpanMetricsConnectorFactory factory = new SpanMetricsConnectorFactory();

    assertThat(factory.type()).isEqualTo("spanmetrics");
    assertThat(factory.aliases()).containsExactly("span_metrics");
    assertThat(factory.supports(Signal.TRACES, Signal.METRICS)).isTrue();
    assertThat(factory.supports(Signal.TRACES, Signal.TRACES)).isFalse();
    assertThat(factory.supports(Signal.METRICS, Signal.METRICS)).isFalse();
    assertThat(factory.supports(Signal.LOGS, Signal.METRICS)).isFalse();
    assertThat(factory.defaultConfig()).isSameAs(SpanMetricsConfig.DEFAULT);
    assertThat(List.of(factory.configType())).containsExactly(SpanMetricsConfig.class);
  }
}
