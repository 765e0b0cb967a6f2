package dev.sluice.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.view.MetricType;
import dev.sluice.prometheus.MetricNameCases.Case;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Metric names as the Collector v0.161 builds them, for every strategy ({@link MetricNameCases}),
 * asked for with plain values and through a metric's view.
 */
class MetricNamesTest {

  static Stream<Case> cases() {
    return MetricNameCases.all().stream();
  }

  @ParameterizedTest
  @MethodSource("cases")
  void namesAMetricAsTheCollectorDoes(Case c) {
    MetricNames names = new MetricNames(c.namespace(), c.strategy());

    assertThat(names.name(c.name(), c.unit(), c.shape().type, c.shape().monotonic))
        .isEqualTo(c.expected());
  }

  @ParameterizedTest
  @MethodSource("cases")
  void namesTheSameMetricReadThroughItsView(Case c) {
    MetricNames names = new MetricNames(c.namespace(), c.strategy());

    assertThat(ThroughViews.metricName(names, c.name(), c.unit(), c.shape()))
        .isEqualTo(c.expected());
  }

  @Test
  void theTableCoversEveryStrategyAndKindOfMetric() {
    List<Case> cases = MetricNameCases.all();
    Set<TranslationStrategy> strategies =
        cases.stream().map(Case::strategy).collect(Collectors.toSet());
    Set<Shape> shapes = cases.stream().map(Case::shape).collect(Collectors.toSet());

    assertThat(cases).hasSizeGreaterThanOrEqualTo(60);
    assertThat(strategies).isEqualTo(EnumSet.allOf(TranslationStrategy.class));
    assertThat(shapes).isEqualTo(EnumSet.allOf(Shape.class));
  }

  @Test
  void monotonicCountsForSumsOnly() {
    MetricNames names = new MetricNames("", TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES);

    assertThat(names.name("jobs", "", MetricType.SUM, true)).isEqualTo("jobs_total");
    assertThat(names.name("jobs", "", MetricType.GAUGE, true)).isEqualTo("jobs");
    assertThat(names.name("jobs", "", MetricType.HISTOGRAM, true)).isEqualTo("jobs");
  }

  @Test
  void aMissingNamespaceNameOrUnitIsEmpty() {
    MetricNames names =
        new MetricNames(null, TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES);

    assertThat(names.name("jobs", null, MetricType.SUM, true)).isEqualTo("jobs_total");
    assertThat(names.name(null, "s", MetricType.GAUGE, false)).isEqualTo("seconds");
  }
}
