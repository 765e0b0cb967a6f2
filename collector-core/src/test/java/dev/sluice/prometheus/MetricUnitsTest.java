package dev.sluice.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Units as Prometheus metadata carries them, as the Collector v0.161's UnitNamer writes them. */
class MetricUnitsTest {
  @ParameterizedTest(name = "{0} -> {1} / {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''|''|''",
        "ms|milliseconds|milliseconds",
        "s|seconds|seconds",
        "By|bytes|bytes",
        "KiBy|kibibytes|kibibytes",
        "1|''|''",
        "{request}|''|''",
        "m/s|meters_per_second|meters_per_second",
        "1/s|per_second|per_second",
        "By/s|bytes_per_second|bytes_per_second",
        "{packet}/s|per_second|per_second",
        "%|percent|percent",
        "Cel|celsius|celsius",
        "' s '|seconds|seconds",
        "foo bar|foo_bar|foo bar",
        "a..b|a_b|a..b",
        "_x_|x|x",
      })
  void writesTheUnitAsTheCollectorDoes(String unit, String escaped, String kept) {
    assertThat(
            new MetricNames("", TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES).unit(unit))
        .isEqualTo(escaped);
    assertThat(new MetricNames("", TranslationStrategy.NO_TRANSLATION).unit(unit)).isEqualTo(kept);
  }
}
