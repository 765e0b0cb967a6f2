package dev.sluice.processor.tailsampling;

import static dev.sluice.processor.tailsampling.PolicyTesting.compile;
import static dev.sluice.processor.tailsampling.PolicyTesting.decide;
import static dev.sluice.processor.tailsampling.PolicyTesting.problems;
import static dev.sluice.processor.tailsampling.PolicyTesting.request;
import static dev.sluice.processor.tailsampling.PolicyTesting.span;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.sluice.config.ConfigProblem;
import dev.sluice.pdata.build.TracesBuilder;
import dev.sluice.pdata.build.ValueWriter;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class AttributePoliciesTest {
  /**
   * A trace of one span whose attributes {@code onSpan} writes, in a resource {@code onResource}.
   */
  private static TracesBuilder trace(
      Consumer<ValueWriter> onResource, Consumer<ValueWriter> onSpan) {
    TracesBuilder traces = new TracesBuilder();
    onResource.accept(traces.resource().attributes());
    traces.scope();
    onSpan.accept(span(traces, 1).attributes());
    return traces;
  }

  private static TracesBuilder onSpan(Consumer<ValueWriter> attributes) {
    return trace(a -> a.put("service.name", "svc"), attributes);
  }

  private static TracesBuilder onResource(Consumer<ValueWriter> attributes) {
    return trace(attributes, a -> a.put("other", 1L));
  }

  // ---- numeric_attribute

  private static PolicyEvaluator numeric(String settings) {
    return compile("{name: p, type: numeric_attribute, numeric_attribute: " + settings + "}");
  }

  private static final String STATUS_5XX = "{key: http.status_code, min_value: 500, max_value: 599";

  @Test
  void numericSamplesAnIntInTheRangeOnASpanOrItsResourceBoundsIncluded() {
    PolicyEvaluator policy = numeric(STATUS_5XX + "}");
    assertThat(decide(policy, onSpan(a -> a.put("http.status_code", 503L))))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("http.status_code", 500L))))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("http.status_code", 599L))))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("http.status_code", 600L))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("http.status_code", 499L))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onResource(a -> a.put("http.status_code", 501L))))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("http.status", 503L))))
        .isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void numericLooksAtEverySpanAndResourceOfTheTrace() {
    PolicyEvaluator policy = numeric(STATUS_5XX + "}");
    TracesBuilder traces = request();
    span(traces, 1).attributes().put("http.status_code", 200L);
    traces.resource().attributes().put("http.status_code", 200L);
    traces.scope();
    span(traces, 2).attributes().put("http.status_code", 200L);
    span(traces, 3).attributes().put("http.status_code", 504L);
    assertThat(decide(policy, traces)).isEqualTo(Decision.SAMPLED);
  }

  @Test
  void numericReadsTheFirstEntryWithTheKey() {
    PolicyEvaluator policy = numeric(STATUS_5XX + "}");
    assertThat(
            decide(
                policy, onSpan(a -> a.put("http.status_code", 200L).put("http.status_code", 500L))))
        .isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void numericWithOneBoundLeavesTheOtherOpen() {
    assertThat(decide(numeric("{key: n, min_value: 10}"), onSpan(a -> a.put("n", Long.MAX_VALUE))))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(numeric("{key: n, min_value: 10}"), onSpan(a -> a.put("n", 9L))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(numeric("{key: n, max_value: 10}"), onSpan(a -> a.put("n", Long.MIN_VALUE))))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(numeric("{key: n, max_value: 10}"), onSpan(a -> a.put("n", 11L))))
        .isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void numericTakesABoundOfZeroAsZero() {
    // The Collector reads min_value: 0 as no lower bound, and samples -5.
    assertThat(
            decide(numeric("{key: n, min_value: 0, max_value: 10}"), onSpan(a -> a.put("n", -5L))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(
            decide(numeric("{key: n, min_value: -10, max_value: 0}"), onSpan(a -> a.put("n", 5L))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(
            decide(numeric("{key: n, min_value: 0, max_value: 10}"), onSpan(a -> a.put("n", 0L))))
        .isEqualTo(Decision.SAMPLED);
  }

  @Test
  void numericIgnoresValuesThatAreNotInts() {
    // The Collector reads a string, bool or double as 0, inside this range.
    PolicyEvaluator policy = numeric("{key: n, min_value: -10, max_value: 10}");
    assertThat(decide(policy, onSpan(a -> a.put("n", "abc")))).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("n", true)))).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("n", 5.0)))).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onResource(a -> a.put("n", "5")))).isEqualTo(Decision.NOT_SAMPLED);
    PolicyEvaluator inverted =
        numeric("{key: n, min_value: -10, max_value: 10, invert_match: true}");
    assertThat(decide(inverted, onSpan(a -> a.put("n", "abc")))).isEqualTo(Decision.SAMPLED);
  }

  @Test
  void numericInvertMatchSamplesUnlessAValueIsInTheRange() {
    PolicyEvaluator policy = numeric(STATUS_5XX + ", invert_match: true}");
    assertThat(decide(policy, onSpan(a -> a.put("http.status_code", 503L))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onResource(a -> a.put("http.status_code", 503L))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("http.status_code", 200L))))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("other", 503L)))).isEqualTo(Decision.SAMPLED);
    TracesBuilder mixed = request();
    span(mixed, 1).attributes().put("http.status_code", 200L);
    span(mixed, 2).attributes().put("http.status_code", 500L);
    assertThat(decide(policy, mixed)).isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void numericRefusesAMissingKeyNoBoundsAndAnEmptyRange() {
    assertThat(problems("{name: p, type: numeric_attribute, numeric_attribute: {min_value: 1}}"))
        .extracting(ConfigProblem::path, ConfigProblem::message)
        .containsExactly(
            tuple("policies[0].numeric_attribute.key", "is required: the attribute to look at"));
    assertThat(problems("{name: p, type: numeric_attribute, numeric_attribute: {key: n}}"))
        .extracting(ConfigProblem::path, ConfigProblem::message)
        .containsExactly(
            tuple(
                "policies[0].numeric_attribute.min_value",
                "at least one of min_value and max_value is required"));
    assertThat(
            problems(
                "{name: p, type: numeric_attribute, numeric_attribute:"
                    + " {key: n, min_value: 5, max_value: 4}}"))
        .extracting(ConfigProblem::path, ConfigProblem::message)
        .containsExactly(
            tuple(
                "policies[0].numeric_attribute.max_value",
                "must be at least min_value (5), was 4: no value would match"));
    assertThat(problems("{name: p, type: numeric_attribute}"))
        .extracting(ConfigProblem::path)
        .containsExactly(
            "policies[0].numeric_attribute.key", "policies[0].numeric_attribute.min_value");
  }

  // ---- string_attribute

  private static PolicyEvaluator string(String settings) {
    return compile("{name: p, type: string_attribute, string_attribute: " + settings + "}");
  }

  @Test
  void stringSamplesAnExactValueOnASpanOrItsResource() {
    PolicyEvaluator policy = string("{key: http.route, values: [/health, /ready]}");
    assertThat(decide(policy, onSpan(a -> a.put("http.route", "/ready"))))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onResource(a -> a.put("http.route", "/health"))))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("http.route", "/health/x"))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("route", "/health"))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("http.route", "/HEALTH"))))
        .isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void stringMatchesNonAsciiValuesByTheirBytes() {
    PolicyEvaluator policy = string("{key: city, values: ['Zürich', '東京']}");
    assertThat(decide(policy, onSpan(a -> a.put("city", "東京")))).isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("city", "Zurich"))))
        .isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void stringRegexFindsAMatchAnywhereInTheValue() {
    PolicyEvaluator policy =
        string("{key: rpc, values: ['v[0-9]+.HealthCheck$'], enabled_regex_matching: true}");
    assertThat(decide(policy, onSpan(a -> a.put("rpc", "grpc.health.v1.HealthCheck"))))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("rpc", "grpc.health.v1.HealthCheckX"))))
        .isEqualTo(Decision.NOT_SAMPLED);
    PolicyEvaluator plain = string("{key: rpc, values: [value], enabled_regex_matching: true}");
    assertThat(decide(plain, onResource(a -> a.put("rpc", "a value here"))))
        .isEqualTo(Decision.SAMPLED);
  }

  @Test
  void stringRegexReadsGoSyntax() {
    // RE2's POSIX classes and named groups, and its $ that matches only at the very end.
    PolicyEvaluator policy =
        string("{key: k, values: ['^(?P<id>[[:digit:]]+)$'], enabled_regex_matching: true}");
    assertThat(decide(policy, onSpan(a -> a.put("k", "123")))).isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("k", "12a")))).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("k", "123\n")))).isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void stringEmptyValueIsMatchedOnAResourceButNeverOnASpan() {
    PolicyEvaluator policy = string("{key: k, values: ['^$'], enabled_regex_matching: true}");
    assertThat(decide(policy, onResource(a -> a.put("k", "")))).isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("k", "")))).isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void stringIgnoresValuesThatAreNotStrings() {
    // The Collector reads an int on a resource as "", which '.*' matches.
    PolicyEvaluator policy = string("{key: k, values: ['.*'], enabled_regex_matching: true}");
    assertThat(decide(policy, onResource(a -> a.put("k", 7L)))).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("k", true)))).isEqualTo(Decision.NOT_SAMPLED);
    PolicyEvaluator exact = string("{key: k, values: ['7']}");
    assertThat(decide(exact, onSpan(a -> a.put("k", 7L)))).isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void stringInvertMatchSamplesUnlessAValueMatches() {
    PolicyEvaluator policy =
        string("{key: k, values: [first_value, value, last_value], invert_match: true}");
    assertThat(decide(policy, onSpan(a -> a.put("k", "value")))).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onResource(a -> a.put("k", "last_value"))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("k", "no_value")))).isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("other", "value")))).isEqualTo(Decision.SAMPLED);
    PolicyEvaluator regex =
        string(
            "{key: k, values: ['^http', 'v[0-9]+.HealthCheck$', 'metrics$'],"
                + " enabled_regex_matching: true, invert_match: true}");
    assertThat(decide(regex, onSpan(a -> a.put("k", "grpc.health.v1.HealthCheck"))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(regex, onSpan(a -> a.put("k", "grpc.Export")))).isEqualTo(Decision.SAMPLED);
  }

  @Test
  void stringRegexCacheHoldsAtMostCacheMaxSizeValuesAndStaysCorrect() {
    AttributePolicies.StringMatch policy =
        (AttributePolicies.StringMatch)
            string("{key: k, values: ['^keep-'], enabled_regex_matching: true, cache_max_size: 3}");
    for (int i = 0; i < 10; i++) {
      String value = (i % 2 == 0 ? "keep-" : "drop-") + i;
      assertThat(decide(policy, onSpan(a -> a.put("k", value))))
          .as(value)
          .isEqualTo(i % 2 == 0 ? Decision.SAMPLED : Decision.NOT_SAMPLED);
      assertThat(policy.cachedResults()).isEqualTo(Math.min(i + 1, 3));
    }
    // Evicted long ago, and still decided right.
    assertThat(decide(policy, onSpan(a -> a.put("k", "keep-0")))).isEqualTo(Decision.SAMPLED);
    assertThat(policy.cachedResults()).isEqualTo(3);
  }

  @Test
  void stringRegexCacheDefaultsToOneHundredTwentyEight() {
    AttributePolicies.StringMatch policy =
        (AttributePolicies.StringMatch)
            string("{key: k, values: ['x'], enabled_regex_matching: true}");
    for (int i = 0; i < 200; i++) {
      String value = "value-" + i;
      decide(policy, onSpan(a -> a.put("k", value)));
    }
    assertThat(policy.cachedResults()).isEqualTo(AttributePolicies.DEFAULT_CACHE_SIZE);
  }

  @Test
  void stringRegexDoesNotCacheLongValues() {
    // A client's long values would otherwise stay in the cache long after their requests.
    PolicyEvaluator policy =
        string("{key: k, values: ['x$'], enabled_regex_matching: true, cache_max_size: 4}");
    String longValue = "v".repeat(AttributePolicies.MAX_CACHED_VALUE_BYTES) + "x";
    assertThat(decide(policy, onSpan(a -> a.put("k", longValue)))).isEqualTo(Decision.SAMPLED);
    assertThat(((AttributePolicies.StringMatch) policy).cachedResults()).isZero();
    assertThat(decide(policy, onSpan(a -> a.put("k", "short-x")))).isEqualTo(Decision.SAMPLED);
    assertThat(((AttributePolicies.StringMatch) policy).cachedResults()).isEqualTo(1);
  }

  @Test
  void lruForgetsTheLeastRecentlyUsedEntry() {
    Lru<String, Boolean> lru = new Lru<>(2);
    lru.put("a", true);
    lru.put("b", false);
    assertThat(lru.get("a")).isTrue();
    lru.put("c", true);
    assertThat(lru).containsOnlyKeys("a", "c");
  }

  @Test
  void stringRefusesWhatCouldNeverMatchAndPatternsRe2Refuses() {
    assertThat(
            problems(
                "{name: p, type: string_attribute, string_attribute:"
                    + " {key: k, values: ['(', 'ok', 'a(?=x)', '(?P<name>x)'], enabled_regex_matching:"
                    + " true}}"))
        .extracting(ConfigProblem::path)
        .containsExactly(
            "policies[0].string_attribute.values[0]", "policies[0].string_attribute.values[2]");
    assertThat(
            problems(
                "{name: p, type: string_attribute, string_attribute:"
                    + " {key: k, values: ['('], enabled_regex_matching: true}}"))
        .singleElement()
        .satisfies(
            p ->
                assertThat(p.message())
                    .startsWith("invalid regular expression \"(\": Unclosed group"));
    assertThat(
            problems(
                "{name: p, type: string_attribute, string_attribute: {key: k, values: [a, '']}}"))
        .extracting(ConfigProblem::path)
        .containsExactly("policies[0].string_attribute.values[1]");
    assertThat(problems("{name: p, type: string_attribute, string_attribute: {key: k}}"))
        .extracting(ConfigProblem::path, ConfigProblem::message)
        .containsExactly(
            tuple("policies[0].string_attribute.values", "expected at least one value to match"));
    assertThat(
            problems(
                "{name: p, type: string_attribute, string_attribute:"
                    + " {values: [a], cache_max_size: -1}}"))
        .extracting(ConfigProblem::path)
        .containsExactly(
            "policies[0].string_attribute.key", "policies[0].string_attribute.cache_max_size");
    // An empty pattern is a pattern: it matches every value.
    compile(
        "{name: p, type: string_attribute, string_attribute:"
            + " {key: k, values: [''], enabled_regex_matching: true}}");
  }

  // ---- boolean_attribute

  private static PolicyEvaluator bool(String settings) {
    return compile("{name: p, type: boolean_attribute, boolean_attribute: " + settings + "}");
  }

  @Test
  void booleanSamplesAnEqualBoolOnASpanOrItsResource() {
    PolicyEvaluator policy = bool("{key: important, value: true}");
    assertThat(decide(policy, onSpan(a -> a.put("important", true)))).isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onResource(a -> a.put("important", true))))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("important", false))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("other", true)))).isEqualTo(Decision.NOT_SAMPLED);
    PolicyEvaluator falseValue = bool("{key: important, value: false}");
    assertThat(decide(falseValue, onSpan(a -> a.put("important", false))))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(falseValue, onSpan(a -> a.put("other", false))))
        .isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void booleanIgnoresValuesThatAreNotBools() {
    // The Collector reads a string or an int as false, equal to value: false.
    PolicyEvaluator policy = bool("{key: important, value: false}");
    assertThat(decide(policy, onSpan(a -> a.put("important", "false"))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onResource(a -> a.put("important", 0L))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(
            decide(bool("{key: important, value: true}"), onSpan(a -> a.put("important", "true"))))
        .isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void booleanInvertMatchSamplesUnlessAnEqualBoolIsFound() {
    PolicyEvaluator policy = bool("{key: important, value: true, invert_match: true}");
    assertThat(decide(policy, onSpan(a -> a.put("important", true))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onResource(a -> a.put("important", true))))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("important", false)))).isEqualTo(Decision.SAMPLED);
    assertThat(decide(policy, onSpan(a -> a.put("other", true)))).isEqualTo(Decision.SAMPLED);
  }

  @Test
  void booleanRefusesAMissingKey() {
    assertThat(problems("{name: p, type: boolean_attribute, boolean_attribute: {value: true}}"))
        .extracting(ConfigProblem::path)
        .containsExactly("policies[0].boolean_attribute.key");
    assertThat(problems("{name: p, type: boolean_attribute}"))
        .extracting(ConfigProblem::path)
        .containsExactly("policies[0].boolean_attribute.key");
  }
}
