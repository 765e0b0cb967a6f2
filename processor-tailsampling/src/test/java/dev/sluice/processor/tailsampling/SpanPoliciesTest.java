package dev.sluice.processor.tailsampling;

import static dev.sluice.processor.tailsampling.PolicyTesting.compile;
import static dev.sluice.processor.tailsampling.PolicyTesting.decide;
import static dev.sluice.processor.tailsampling.PolicyTesting.problems;
import static dev.sluice.processor.tailsampling.PolicyTesting.request;
import static dev.sluice.processor.tailsampling.PolicyTesting.span;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigProblem;
import dev.sluice.pdata.build.TracesBuilder;
import dev.sluice.pdata.view.SpanView;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SpanPoliciesTest {
  private static final long T0 = 1_700_000_000_000_000_000L;
  private static final long MS = 1_000_000L;

  // ---- always_sample

  @Test
  void alwaysSampleSamplesAnyTrace() {
    TracesBuilder traces = request();
    span(traces, 1);
    assertThat(decide(compile("{name: p, type: always_sample}"), traces))
        .isEqualTo(Decision.SAMPLED);
  }

  // ---- latency

  private static TracesBuilder spans(long[]... startEndMs) {
    TracesBuilder traces = request();
    for (int i = 0; i < startEndMs.length; i++) {
      long start = startEndMs[i][0] < 0 ? 0 : T0 + startEndMs[i][0] * MS;
      long end = startEndMs[i][1] < 0 ? 0 : T0 + startEndMs[i][1] * MS;
      span(traces, i + 1).startTimeUnixNano(start).endTimeUnixNano(end);
    }
    return traces;
  }

  private static Decision latency(String settings, long[]... startEndMs) {
    return decide(
        compile("{name: p, type: latency, latency: " + settings + "}"), spans(startEndMs));
  }

  @Test
  void latencySamplesATraceLongerThanTheThresholdFromEarliestStartToLatestEnd() {
    // Neither span alone is longer than 100 ms; together they run 150 ms.
    long[] a = {0, 60};
    long[] b = {70, 150};
    assertThat(latency("{threshold_ms: 100}", a, b)).isEqualTo(Decision.SAMPLED);
    assertThat(latency("{threshold_ms: 150}", a, b)).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(latency("{threshold_ms: 149}", a, b)).isEqualTo(Decision.SAMPLED);
  }

  @Test
  void latencyCountsWholeMillisecondsTruncated() {
    TracesBuilder traces = request();
    span(traces, 1).startTimeUnixNano(T0).endTimeUnixNano(T0 + 100 * MS + 999_999);
    assertThat(decide(compile("{name: p, type: latency, latency: {threshold_ms: 100}}"), traces))
        .isEqualTo(Decision.NOT_SAMPLED);
    TracesBuilder longer = request();
    span(longer, 1).startTimeUnixNano(T0).endTimeUnixNano(T0 + 101 * MS);
    assertThat(decide(compile("{name: p, type: latency, latency: {threshold_ms: 100}}"), longer))
        .isEqualTo(Decision.SAMPLED);
  }

  @Test
  void latencyWithAnUpperThresholdSamplesAboveTheLowerAndUpToTheUpper() {
    String range = "{threshold_ms: 100, upper_threshold_ms: 200}";
    assertThat(latency(range, new long[] {0, 100})).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(latency(range, new long[] {0, 101})).isEqualTo(Decision.SAMPLED);
    assertThat(latency(range, new long[] {0, 200})).isEqualTo(Decision.SAMPLED);
    assertThat(latency(range, new long[] {0, 201})).isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void latencyWithAnUpperThresholdDecidesOnTheWholeTraceWhateverTheSpanOrder() {
    // The Collector samples this trace of 1 s: its first span alone (150 ms) is in range.
    String range = "{threshold_ms: 100, upper_threshold_ms: 200}";
    assertThat(latency(range, new long[] {0, 150}, new long[] {0, 1000}))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(latency(range, new long[] {0, 1000}, new long[] {0, 150}))
        .isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void latencyLeavesUnsetTimestampsOut() {
    // The Collector measures from 1970 when the span with an unset start comes last.
    assertThat(latency("{threshold_ms: 100}", new long[] {0, 50}, new long[] {-1, 40}))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(latency("{threshold_ms: 100}", new long[] {-1, 40}, new long[] {0, 50}))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(latency("{threshold_ms: 10}", new long[] {0, -1}, new long[] {5, 50}))
        .isEqualTo(Decision.SAMPLED);
  }

  @Test
  void latencyDoesNotSampleATraceWithoutTimestamps() {
    assertThat(latency("{threshold_ms: 0}", new long[] {-1, -1})).isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void latencyMeasuresAcrossRequestsAndResources() {
    TracesBuilder first = request();
    span(first, 1).startTimeUnixNano(T0).endTimeUnixNano(T0 + 10 * MS);
    first.resource().attributes().put("service.name", "other");
    first.scope();
    span(first, 2).startTimeUnixNano(T0 + 5 * MS).endTimeUnixNano(T0 + 20 * MS);
    TracesBuilder second = request();
    span(second, 3).startTimeUnixNano(T0 + 30 * MS).endTimeUnixNano(T0 + 130 * MS);
    PolicyEvaluator policy = compile("{name: p, type: latency, latency: {threshold_ms: 129}}");
    assertThat(decide(policy, first, second)).isEqualTo(Decision.SAMPLED);
  }

  @Test
  void latencyWithoutItsSectionSamplesAnyTraceLongerThanZero() {
    assertThat(decide(compile("{name: p, type: latency}"), spans(new long[] {0, 1})))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(compile("{name: p, type: latency}"), spans(new long[] {0, 0})))
        .isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void latencyRefusesNegativeThresholdsAndAnEmptyRange() {
    assertThat(problems("{name: p, type: latency, latency: {threshold_ms: -1}}"))
        .extracting(ConfigProblem::path, ConfigProblem::message)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "policies[0].latency.threshold_ms", "must not be negative, was -1"));
    assertThat(
            problems(
                "{name: p, type: latency, latency: {threshold_ms: 200, upper_threshold_ms: 200}}"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path()).isEqualTo("policies[0].latency.upper_threshold_ms");
              assertThat(p.message()).contains("must be above threshold_ms (200)", "was 200");
            });
    assertThat(problems("{name: p, type: latency, latency: {upper_threshold_ms: -5}}"))
        .extracting(ConfigProblem::path)
        .containsExactly("policies[0].latency.upper_threshold_ms");
  }

  // ---- probabilistic

  @Test
  void probabilisticKeepsTheSameTracesAsTheCollector() throws Exception {
    int checked = 0;
    try (var lines =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(
                getClass().getResourceAsStream("/probabilistic-go-v0.161.0.txt"),
                StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        if (line.startsWith("#")) {
          continue;
        }
        String[] f = fields(line);
        switch (f[0]) {
          case "THRESHOLD" ->
              assertThat(
                      Long.toUnsignedString(
                          SpanPolicies.Probabilistic.threshold(Double.parseDouble(f[1]) / 100)))
                  .as(line)
                  .isEqualTo(f[2]);
          case "HASH" -> {
            long[] id = traceId(f[2]);
            long hash =
                SpanPolicies.Probabilistic.hash(
                    SpanPolicies.Probabilistic.saltHash(f[1]), id[0], id[1]);
            assertThat(Long.toUnsignedString(hash)).as(line).isEqualTo(f[3]);
          }
          case "DECISION" -> {
            PolicyEvaluator policy =
                compile(
                    "{name: p, type: probabilistic, probabilistic: {hash_salt: '"
                        + f[1]
                        + "', sampling_percentage: "
                        + f[2]
                        + "}}");
            TraceData trace = traceWithId(f[3]);
            Decision expected = f[4].equals("sampled") ? Decision.SAMPLED : Decision.NOT_SAMPLED;
            assertThat(policy.evaluate(trace)).as(line).isEqualTo(expected);
          }
          default -> throw new AssertionError(line);
        }
        checked++;
      }
    }
    assertThat(checked).isEqualTo(14 + 129 + 387);
  }

  /** Splits a table line: a word, then fields, the quoted salt as one field without quotes. */
  private static String[] fields(String line) {
    int quote = line.indexOf('"');
    if (quote < 0) {
      return line.split(" ");
    }
    int close = line.indexOf('"', quote + 1);
    String[] rest = line.substring(close + 2).split(" ");
    String[] out = new String[rest.length + 2];
    out[0] = line.substring(0, quote - 1);
    out[1] = line.substring(quote + 1, close);
    System.arraycopy(rest, 0, out, 2, rest.length);
    return out;
  }

  private static long[] traceId(String hex) {
    return new long[] {
      Long.parseUnsignedLong(hex.substring(0, 16), 16),
      Long.parseUnsignedLong(hex.substring(16), 16)
    };
  }

  private static TraceData traceWithId(String hex) {
    long[] id = traceId(hex);
    return new TraceData(id[0], id[1], 0, 0);
  }

  @Test
  void probabilisticThresholdTruncatesTheProductAsGoDoes() {
    // (2^64 - 1) * 0.1 (the double nearest 0.1) is 1844674407370955263.9...; Go truncates it.
    assertThat(Long.toUnsignedString(SpanPolicies.Probabilistic.threshold(0.1)))
        .isEqualTo("1844674407370955263");
    assertThat(SpanPolicies.Probabilistic.threshold(1.0)).isEqualTo(-1L);
    assertThat(SpanPolicies.Probabilistic.threshold(0)).isZero();
  }

  @Test
  void probabilisticAtZeroAndHundredPercent() {
    TraceData trace = traceWithId("0102030405060708090a0b0c0d0e0f10");
    assertThat(
            compile("{name: p, type: probabilistic, probabilistic: {sampling_percentage: 100}}")
                .evaluate(trace))
        .isEqualTo(Decision.SAMPLED);
    assertThat(
            compile("{name: p, type: probabilistic, probabilistic: {sampling_percentage: 0}}")
                .evaluate(trace))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(compile("{name: p, type: probabilistic}").evaluate(trace))
        .isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void probabilisticRefusesAPercentageOutsideZeroToHundred() {
    assertThat(problems("{name: p, type: probabilistic, probabilistic: {sampling_percentage: -1}}"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path()).isEqualTo("policies[0].probabilistic.sampling_percentage");
              assertThat(p.message()).isEqualTo("must be a percentage from 0 to 100, was -1.0");
            });
    assertThat(
            problems("{name: p, type: probabilistic, probabilistic: {sampling_percentage: 100.5}}"))
        .extracting(ConfigProblem::path)
        .containsExactly("policies[0].probabilistic.sampling_percentage");
  }

  // ---- status_code

  private static TracesBuilder statuses(int... codes) {
    TracesBuilder traces = request();
    for (int i = 0; i < codes.length; i++) {
      span(traces, i + 1).status(codes[i], codes[i] == SpanView.STATUS_ERROR ? "boom" : "");
    }
    return traces;
  }

  @Test
  void statusCodeSamplesATraceWithASpanOfOneOfTheCodes() {
    PolicyEvaluator errors =
        compile("{name: p, type: status_code, status_code: {status_codes: [ERROR]}}");
    assertThat(decide(errors, statuses(SpanView.STATUS_OK, SpanView.STATUS_ERROR)))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(errors, statuses(SpanView.STATUS_OK, SpanView.STATUS_UNSET)))
        .isEqualTo(Decision.NOT_SAMPLED);
    PolicyEvaluator okOrUnset =
        compile("{name: p, type: status_code, status_code: {status_codes: [OK, UNSET]}}");
    assertThat(decide(okOrUnset, statuses(SpanView.STATUS_ERROR, SpanView.STATUS_UNSET)))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(okOrUnset, statuses(SpanView.STATUS_ERROR))).isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void statusCodeUnsetMatchesASpanWithoutStatus() {
    TracesBuilder traces = request();
    span(traces, 1);
    assertThat(
            decide(
                compile("{name: p, type: status_code, status_code: {status_codes: [UNSET]}}"),
                traces))
        .isEqualTo(Decision.SAMPLED);
  }

  @Test
  void statusCodeRefusesUnknownCodesAndAnEmptyList() {
    assertThat(
            problems("{name: p, type: status_code, status_code: {status_codes: [ERROR, ok, 5]}}"))
        .extracting(ConfigProblem::path, ConfigProblem::message)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "policies[0].status_code.status_codes[1]",
                "unknown status code \"ok\", expected OK, ERROR or UNSET"),
            org.assertj.core.groups.Tuple.tuple(
                "policies[0].status_code.status_codes[2]",
                "unknown status code \"5\", expected OK, ERROR or UNSET"));
    assertThat(problems("{name: p, type: status_code, status_code: {status_codes: []}}"))
        .extracting(ConfigProblem::path)
        .containsExactly("policies[0].status_code.status_codes");
    assertThat(problems("{name: p, type: status_code}"))
        .extracting(ConfigProblem::path)
        .containsExactly("policies[0].status_code.status_codes");
  }

  // ---- span_count

  private static Decision spanCount(String settings, int spans) {
    TracesBuilder traces = request();
    for (int i = 0; i < spans; i++) {
      span(traces, i + 1);
    }
    return decide(compile("{name: p, type: span_count, span_count: " + settings + "}"), traces);
  }

  @Test
  void spanCountWithoutMaximumSamplesAtLeastMinSpans() {
    assertThat(spanCount("{min_spans: 2}", 1)).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(spanCount("{min_spans: 2}", 2)).isEqualTo(Decision.SAMPLED);
    assertThat(spanCount("{min_spans: 2, max_spans: 0}", 30)).isEqualTo(Decision.SAMPLED);
  }

  @Test
  void spanCountWithMaximumSamplesBetweenBothInclusive() {
    assertThat(spanCount("{min_spans: 2, max_spans: 3}", 1)).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(spanCount("{min_spans: 2, max_spans: 3}", 2)).isEqualTo(Decision.SAMPLED);
    assertThat(spanCount("{min_spans: 2, max_spans: 3}", 3)).isEqualTo(Decision.SAMPLED);
    assertThat(spanCount("{min_spans: 2, max_spans: 3}", 4)).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(spanCount("{max_spans: 1}", 1)).isEqualTo(Decision.SAMPLED);
  }

  @Test
  void spanCountRefusesNegativeCountsAndAMaximumBelowTheMinimum() {
    assertThat(problems("{name: p, type: span_count, span_count: {min_spans: -1}}"))
        .extracting(ConfigProblem::path)
        .containsExactly("policies[0].span_count.min_spans");
    assertThat(problems("{name: p, type: span_count, span_count: {max_spans: -1}}"))
        .extracting(ConfigProblem::path)
        .containsExactly("policies[0].span_count.max_spans");
    assertThat(problems("{name: p, type: span_count, span_count: {min_spans: 5, max_spans: 4}}"))
        .singleElement()
        .satisfies(p -> assertThat(p.message()).contains("at least min_spans (5)", "was 4"));
  }

  // ---- trace_state

  private static Decision traceState(String settings, String... traceStates) {
    TracesBuilder traces = request();
    for (int i = 0; i < traceStates.length; i++) {
      span(traces, i + 1).traceState(traceStates[i]);
    }
    return decide(compile("{name: p, type: trace_state, trace_state: " + settings + "}"), traces);
  }

  private static final String ROJO = "{key: rojo, values: ['00f067aa0ba902b7', other]}";

  @Test
  void traceStateSamplesASpanWithTheKeyAndOneOfTheValues() {
    assertThat(traceState(ROJO, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"))
        .isEqualTo(Decision.SAMPLED);
    assertThat(traceState(ROJO, "congo=t61rcWkgMzE,rojo=other")).isEqualTo(Decision.SAMPLED);
    assertThat(traceState(ROJO, "rojo=00f067aa0ba902b8")).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(traceState(ROJO, "congo=00f067aa0ba902b7")).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(traceState(ROJO, "", "rojo=other")).isEqualTo(Decision.SAMPLED);
    assertThat(traceState(ROJO, "")).isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void traceStateTrimsSpacesBeforeKeysAndAfterValuesAndSkipsEmptyMembers() {
    assertThat(traceState(ROJO, ",, congo=x ,\t rojo=other \t,,")).isEqualTo(Decision.SAMPLED);
    // A space after a key or before a value is not trimmed: a bad key, or part of the value.
    assertThat(traceState(ROJO, "rojo =other")).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(traceState(ROJO, "rojo= other")).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(traceState("{key: rojo, values: [' other']}", "rojo= other"))
        .isEqualTo(Decision.SAMPLED);
  }

  @Test
  void traceStateThatIsNotAValidListMatchesNothing() {
    assertThat(traceState(ROJO, "rojo=other,Congo=x")).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(traceState(ROJO, "rojo=other,congo")).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(traceState(ROJO, "rojo=other,congo=a=b")).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(traceState(ROJO, "rojo=other,rojo=other")).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(traceState(ROJO, "rojo=other, ")).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(traceState(ROJO, "rojo=other,congo=")).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(traceState(ROJO, "rojo=other,congo=caf\u00e9")).isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void traceStateHoldsAtMostThirtyTwoMembers() {
    StringBuilder list = new StringBuilder("rojo=other");
    for (int i = 1; i < 32; i++) {
      list.append(",k").append(i).append("=v");
    }
    assertThat(traceState(ROJO, list.toString())).isEqualTo(Decision.SAMPLED);
    list.append(",k32=v");
    assertThat(traceState(ROJO, list.toString())).isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void traceStateParsesKeysAndValuesWithW3cLimits() {
    W3cTraceState parser = new W3cTraceState();
    String key256 = "a" + "b".repeat(255);
    String value256 = "v".repeat(256);
    assertThat(parser.parse(utf8(key256 + "=" + value256))).isTrue();
    assertThat(parser.parse(utf8(key256 + "b=v"))).isFalse();
    assertThat(parser.parse(utf8("k=" + value256 + "v"))).isFalse();
    assertThat(parser.parse(utf8("0abc=v"))).isFalse();
    assertThat(parser.parse(utf8("0tenant@vendor_1=v,a-b*c/d_e=x"))).isTrue();
    assertThat(parser.find(utf8("0tenant@vendor_1"))).isZero();
    assertThat(parser.value(1)).isEqualTo("x");
    assertThat(parser.parse(utf8("t@" + "s".repeat(15) + "=v"))).isFalse();
    assertThat(parser.parse(utf8("t@" + "s".repeat(14) + "=v"))).isTrue();
    assertThat(parser.parse(utf8("t@Vendor=v"))).isFalse();
    assertThat(parser.parse(utf8("t@s@x=v"))).isFalse();
    assertThat(parser.parse(utf8(" \tk=a b!~ \t"))).isTrue();
    assertThat(parser.value(0)).isEqualTo("a b!~");
  }

  @Test
  void traceStateMatchesAMultiTenantKey() {
    assertThat(traceState("{key: 'acme@ot', values: [th1]}", "acme@ot=th1"))
        .isEqualTo(Decision.SAMPLED);
  }

  @Test
  void traceStateRefusesWhatCouldNeverMatch() {
    assertThat(problems("{name: p, type: trace_state, trace_state: {values: [x]}}"))
        .extracting(ConfigProblem::path)
        .containsExactly("policies[0].trace_state.key");
    assertThat(problems("{name: p, type: trace_state, trace_state: {key: Rojo, values: [x]}}"))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path()).isEqualTo("policies[0].trace_state.key");
              assertThat(p.message()).startsWith("\"Rojo\" is not a W3C tracestate key");
            });
    assertThat(problems("{name: p, type: trace_state, trace_state: {key: rojo}}"))
        .extracting(ConfigProblem::path)
        .containsExactly("policies[0].trace_state.values");
    assertThat(
            problems(
                "{name: p, type: trace_state, trace_state: {key: rojo, values: [ok, '', 'a,b',"
                    + " 'x ', '"
                    + "v".repeat(252)
                    + "']}}"))
        .extracting(ConfigProblem::path)
        .containsExactly(
            "policies[0].trace_state.values[1]",
            "policies[0].trace_state.values[2]",
            "policies[0].trace_state.values[3]",
            "policies[0].trace_state.values[4]");
    // Under 256 with the key: kept.
    compile(
        "{name: p, type: trace_state, trace_state: {key: rojo, values: ['"
            + "v".repeat(251)
            + "']}}");
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  // ---- trace_flags

  @Test
  void traceFlagsSamplesATraceWithASpanWhoseSampledFlagIsSet() {
    PolicyEvaluator policy = compile("{name: p, type: trace_flags}");
    TracesBuilder unsampled = request();
    span(unsampled, 1).flags(0x00);
    span(unsampled, 2).flags(0x100); // the parent is remote; not sampled
    assertThat(decide(policy, unsampled)).isEqualTo(Decision.NOT_SAMPLED);
    TracesBuilder oneSampled = request();
    span(oneSampled, 1).flags(0x100);
    span(oneSampled, 2).flags(0x301);
    assertThat(decide(policy, oneSampled)).isEqualTo(Decision.SAMPLED);
  }
}
