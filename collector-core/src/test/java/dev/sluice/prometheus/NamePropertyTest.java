package dev.sluice.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * For any name, unit and key: the escaping strategies give a valid classic Prometheus name or none,
 * and a name asked for through a metric's view (written with {@code MetricsBuilder}, indexed, read
 * back) equals the one asked for with the same plain values. Text comes from a mix of the pieces
 * the rules react to (unit symbols, braces, slashes, {@code total}, {@code ratio}, underscores,
 * spaces of every kind, multi-byte characters) and arbitrary well-formed text.
 */
class NamePropertyTest {
  private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  private static final List<String> PIECES =
      List.of(
          "a",
          "http",
          "duration",
          "_",
          "__",
          ".",
          "-",
          "/",
          "{",
          "}",
          ":",
          "1",
          "0",
          "9",
          "s",
          "ms",
          "By",
          "KiBy",
          "%",
          "m",
          "mo",
          "Cel",
          " ",
          "\t",
          "\u00a0",
          "\u3000",
          "\u2000",
          "total",
          "ratio",
          "seconds",
          "per",
          "per_second",
          "é",
          "字",
          "😀",
          "ß",
          "@",
          "$",
          "{req}",
          "By/s",
          "1/s",
          " 1",
          "1 ",
          "\u001c",
          "__name__",
          "key");

  @Provide
  Arbitrary<String> text() {
    Arbitrary<String> pieces =
        Arbitraries.of(PIECES).list().ofMaxSize(6).map(p -> String.join("", p));
    Arbitrary<String> any =
        Arbitraries.strings()
            .withCharRange('\u0000', '\uffff')
            .ofMaxLength(24)
            .filter(NamePropertyTest::wellFormed);
    return Arbitraries.oneOf(pieces, pieces, any);
  }

  @Provide
  Arbitrary<TranslationStrategy> escaping() {
    return Arbitraries.of(
        TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES,
        TranslationStrategy.UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES);
  }

  @Provide
  Arbitrary<String> namespace() {
    return Arbitraries.of("", "shop", "app_2", "_ns");
  }

  @Property(tries = 2000)
  void escapedMetricNamesAreValidOrRefused(
      @ForAll("escaping") TranslationStrategy strategy,
      @ForAll("namespace") String namespace,
      @ForAll("text") String name,
      @ForAll("text") String unit,
      @ForAll Shape shape) {
    String result =
        new MetricNames(namespace, strategy).name(name, unit, shape.type, shape.monotonic);

    assertThat(result)
        .satisfiesAnyOf(r -> assertThat(r).isEmpty(), r -> assertThat(r).matches(METRIC_NAME));
  }

  @Property(tries = 2000)
  void escapedLabelsAreValidOrRefused(
      @ForAll("escaping") TranslationStrategy strategy, @ForAll("text") String key) {
    String result = new LabelNames(strategy).label(key);

    assertThat(result)
        .satisfiesAnyOf(r -> assertThat(r).isEmpty(), r -> assertThat(r).matches(LABEL_NAME));
  }

  @Property(tries = 500)
  void aMetricReadThroughItsViewIsNamedAsItsValuesAre(
      @ForAll TranslationStrategy strategy,
      @ForAll("namespace") String namespace,
      @ForAll("text") String name,
      @ForAll("text") String unit,
      @ForAll Shape shape) {
    // Two instances, so that neither answer comes from the other's cache entry.
    String fromValues =
        new MetricNames(namespace, strategy).name(name, unit, shape.type, shape.monotonic);
    String fromView =
        ThroughViews.metricName(new MetricNames(namespace, strategy), name, unit, shape);

    assertThat(fromView).isEqualTo(fromValues);
  }

  @Property(tries = 500)
  void aKeyReadThroughACursorIsLabelledAsItsTextIs(
      @ForAll TranslationStrategy strategy, @ForAll("text") String key) {
    String fromText = new LabelNames(strategy).label(key);

    assertThat(ThroughViews.labels(new LabelNames(strategy), List.of(key)))
        .containsExactly(fromText);
  }

  /** No lone surrogates: the text a view can hold, since indexed text is valid UTF-8. */
  private static boolean wellFormed(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }
}
