package dev.sluice.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.build.MetricsBuilder;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.prometheus.LabelNameCases.Case;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Label names as the Collector v0.161 builds them ({@link LabelNameCases}) under every strategy,
 * asked for with plain keys and through attribute cursors.
 */
class LabelNamesTest {

  static Stream<Arguments> cases() {
    return LabelNameCases.all().stream()
        .flatMap(c -> Stream.of(TranslationStrategy.values()).map(s -> Arguments.of(s, c)));
  }

  private static String expected(TranslationStrategy strategy, Case c) {
    return strategy.escapes() ? c.escaped() : c.kept();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void namesAKeyAsTheCollectorDoes(TranslationStrategy strategy, Case c) {
    assertThat(new LabelNames(strategy).label(c.key())).isEqualTo(expected(strategy, c));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void namesTheSameKeyReadThroughACursor(TranslationStrategy strategy, Case c) {
    assertThat(ThroughViews.labels(new LabelNames(strategy), List.of(c.key())))
        .containsExactly(expected(strategy, c));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void namesTheSameKeyGivenAsUtf8InsideALargerArray(TranslationStrategy strategy, Case c) {
    byte[] key = c.key().getBytes(StandardCharsets.UTF_8);
    byte[] padded = new byte[key.length + 6];
    Arrays.fill(padded, (byte) 'z');
    System.arraycopy(key, 0, padded, 3, key.length);
    LabelNames names = new LabelNames(strategy);

    String fromBytes = names.label(padded, 3, key.length);

    assertThat(fromBytes).isEqualTo(expected(strategy, c));
    assertThat(names.label(c.key())).isSameAs(fromBytes);
  }

  @Test
  void theTableHoldsTwentyKeysOrMore() {
    assertThat(LabelNameCases.all()).hasSizeGreaterThanOrEqualTo(20);
  }

  @Test
  void scopeAttributesAreLabelledWithTheScopePrefix() {
    MetricsBuilder metrics = new MetricsBuilder();
    metrics.resource();
    metrics.scope().name("lib").attributes().put("team.name", "a").put("_x", "b").put("ü", "c");
    metrics.metric().name("m").gauge().numberPoint().timeUnixNano(1).intValue(1);
    Batch batch = Batch.of(metrics.build());
    AttributeCursor cursor = new AttributeCursor();
    List<String> escaped = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    LabelNames escaping = new LabelNames(TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES);
    LabelNames keeping = new LabelNames(TranslationStrategy.NO_TRANSLATION);

    new BatchView()
        .forEachMetric(
            batch,
            (resource, scope, metric) -> {
              scope.attributes(cursor);
              while (cursor.next()) {
                escaped.add(escaping.scopeAttribute(cursor.key()));
                kept.add(keeping.scopeAttribute(cursor.key()));
              }
            });
    batch.clear();

    assertThat(escaped).containsExactly("otel_scope_team_name", "otel_scope_x", "otel_scope_");
    assertThat(kept).containsExactly("otel_scope_team.name", "otel_scope__x", "otel_scope_ü");
    assertThat(escaping.label("otel_scope_team.name")).isSameAs(escaped.get(0));
  }
}
