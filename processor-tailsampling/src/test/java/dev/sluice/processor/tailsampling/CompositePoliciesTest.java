package dev.sluice.processor.tailsampling;

import static dev.sluice.processor.tailsampling.Decision.DROPPED;
import static dev.sluice.processor.tailsampling.Decision.ERROR;
import static dev.sluice.processor.tailsampling.Decision.INVERT_NOT_SAMPLED;
import static dev.sluice.processor.tailsampling.Decision.INVERT_SAMPLED;
import static dev.sluice.processor.tailsampling.Decision.NOT_SAMPLED;
import static dev.sluice.processor.tailsampling.Decision.SAMPLED;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ottl.ErrorMode;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompositePoliciesTest {
  private static final long SECOND = 1_000_000_000L;

  /** A sub-policy that always answers {@code decision} and counts how often it was asked. */
  private static final class Fixed implements PolicyEvaluator {
    final Decision decision;
    int asked;

    Fixed(Decision decision) {
      this.decision = decision;
    }

    @Override
    public Decision evaluate(TraceData trace) {
      asked++;
      return decision;
    }
  }

  private static Fixed fixed(Decision decision) {
    return new Fixed(decision);
  }

  private static TraceData spans(long nowNanos, long count) {
    return Policy.sized(nowNanos, count, 100 * count);
  }

  @Test
  void andSamplesWhenEverySubPolicySamplesCountingAnInvertedSampleAsOne() {
    assertThat(CompositePolicies.and(fixed(SAMPLED), fixed(SAMPLED)).evaluate(spans(0, 1)))
        .isEqualTo(SAMPLED);
    assertThat(CompositePolicies.and(fixed(INVERT_SAMPLED), fixed(SAMPLED)).evaluate(spans(0, 1)))
        .isEqualTo(SAMPLED);
    assertThat(CompositePolicies.and(fixed(SAMPLED), fixed(NOT_SAMPLED)).evaluate(spans(0, 1)))
        .isEqualTo(NOT_SAMPLED);
    // An inverted "not sampled" comes out plain: the strong precedence stays inside.
    assertThat(
            CompositePolicies.and(fixed(SAMPLED), fixed(INVERT_NOT_SAMPLED)).evaluate(spans(0, 1)))
        .isEqualTo(NOT_SAMPLED);
  }

  @Test
  void andStopsAtTheFirstSubPolicyThatDoesNotSampleOrFails() {
    Fixed later = fixed(SAMPLED);
    assertThat(CompositePolicies.and(fixed(NOT_SAMPLED), later).evaluate(spans(0, 1)))
        .isEqualTo(NOT_SAMPLED);
    assertThat(CompositePolicies.and(fixed(ERROR), later).evaluate(spans(0, 1))).isEqualTo(ERROR);
    assertThat(later.asked).isZero();
    assertThat(CompositePolicies.and(fixed(SAMPLED), fixed(ERROR)).evaluate(spans(0, 1)))
        .isEqualTo(ERROR);
  }

  @Test
  void notSwapsSampledAndNotSampledAndPassesEveryOtherAnswer() {
    assertThat(CompositePolicies.not(fixed(SAMPLED)).evaluate(spans(0, 1))).isEqualTo(NOT_SAMPLED);
    assertThat(CompositePolicies.not(fixed(NOT_SAMPLED)).evaluate(spans(0, 1))).isEqualTo(SAMPLED);
    assertThat(CompositePolicies.not(fixed(INVERT_SAMPLED)).evaluate(spans(0, 1)))
        .isEqualTo(INVERT_SAMPLED);
    assertThat(CompositePolicies.not(fixed(INVERT_NOT_SAMPLED)).evaluate(spans(0, 1)))
        .isEqualTo(INVERT_NOT_SAMPLED);
    assertThat(CompositePolicies.not(fixed(ERROR)).evaluate(spans(0, 1))).isEqualTo(ERROR);
  }

  @Test
  void dropAnswersDroppedWhenEverySubPolicySamples() {
    assertThat(CompositePolicies.drop(fixed(SAMPLED), fixed(INVERT_SAMPLED)).evaluate(spans(0, 1)))
        .isEqualTo(DROPPED);
    Fixed later = fixed(SAMPLED);
    assertThat(CompositePolicies.drop(fixed(INVERT_NOT_SAMPLED), later).evaluate(spans(0, 1)))
        .isEqualTo(NOT_SAMPLED);
    assertThat(later.asked).isZero();
    assertThat(CompositePolicies.drop(fixed(SAMPLED), fixed(ERROR)).evaluate(spans(0, 1)))
        .isEqualTo(ERROR);
  }

  @Test
  void dropOfANotOfAConditionDropsTheTracesWithoutIt() {
    PolicyConfig drop =
        new PolicyConfig(
            "drop-unless-checkout-error",
            "drop",
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            new PolicyConfig.Drop(
                List.of(
                    new PolicyConfig(
                        "not-error",
                        "not",
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        new PolicyConfig.Not(
                            Policy.ottl(
                                "error", null, List.of("IsMatch(name, \"error\")"), List.of())),
                        null))));
    assertThat(Policy.problems(drop)).isEmpty();
    PolicyEvaluator policy = Policies.compileOne(drop);
    TraceData ok = Spans.trace(0, "GET /a", "GET /b");
    TraceData failed = Spans.trace(0, "GET /a", "error in GET /b");
    try {
      assertThat(policy.evaluate(ok)).isEqualTo(DROPPED);
      assertThat(policy.evaluate(failed)).isEqualTo(NOT_SAMPLED);
    } finally {
      ok.spans().clear();
      failed.spans().clear();
    }
  }

  @Test
  void budgetsAreGosSharesCutToWholeSpans() {
    PolicyConfig a = Policy.of("a", "always_sample");
    PolicyConfig b = Policy.of("b", "always_sample");
    PolicyConfig c = Policy.of("c", "always_sample");
    // Sub-policies left out share the total equally among all the sub-policies, allocated or not.
    assertThat(
            CompositePolicies.budgets(
                new PolicyConfig.Composite(
                    100,
                    List.of(),
                    List.of(a, b, c),
                    List.of(
                        new PolicyConfig.RateAllocation("a", 50),
                        new PolicyConfig.RateAllocation("b", 25)))))
        .containsExactly(50, 25, 33);
    // Worked out in doubles as Go does: 29 / 100 * 100 is 28.999999999999996, so 28.
    assertThat(
            CompositePolicies.budgets(
                new PolicyConfig.Composite(
                    100,
                    List.of(),
                    List.of(a, b),
                    List.of(
                        new PolicyConfig.RateAllocation("a", 29),
                        new PolicyConfig.RateAllocation("b", 57)))))
        .containsExactly(28, 56);
    assertThat(
            CompositePolicies.budgets(
                new PolicyConfig.Composite(10, List.of(), List.of(a, b, c), List.of())))
        .containsExactly(3, 3, 3);
  }

  @Test
  void theFirstSubPolicyThatSamplesSpendsItsBudgetForTheSecond() {
    Fixed first = fixed(SAMPLED);
    Fixed second = fixed(SAMPLED);
    PolicyEvaluator composite =
        CompositePolicies.composite(new PolicyEvaluator[] {first, second}, new long[] {10, 20}, 30);
    long t = 40 * SECOND;
    assertThat(composite.evaluate(spans(t, 4))).isEqualTo(SAMPLED);
    assertThat(composite.evaluate(spans(t + 1, 4))).isEqualTo(SAMPLED);
    // 12 spans would be over the first's 10: not sampled, and the second is not asked.
    assertThat(composite.evaluate(spans(t + 2, 4))).isEqualTo(NOT_SAMPLED);
    assertThat(second.asked).isZero();
    // Nothing was spent on the refused trace, so a smaller one still fits.
    assertThat(composite.evaluate(spans(t + 3, 2))).isEqualTo(SAMPLED);
    assertThat(composite.evaluate(spans(t + SECOND - 1, 1))).isEqualTo(NOT_SAMPLED);
    // The next whole second starts every budget again.
    assertThat(composite.evaluate(spans(t + SECOND, 10))).isEqualTo(SAMPLED);
    assertThat(composite.evaluate(spans(t + SECOND + 1, 1))).isEqualTo(NOT_SAMPLED);
    assertThat(composite.evaluate(spans(t + 5 * SECOND + SECOND / 2, 10))).isEqualTo(SAMPLED);
  }

  @Test
  void aSubPolicyThatDoesNotSampleHandsTheTraceToTheNext() {
    Fixed first = fixed(NOT_SAMPLED);
    Fixed inverted = fixed(INVERT_NOT_SAMPLED);
    Fixed third = fixed(INVERT_SAMPLED);
    PolicyEvaluator composite =
        CompositePolicies.composite(
            new PolicyEvaluator[] {first, inverted, third}, new long[] {5, 5, 5}, 100);
    assertThat(composite.evaluate(spans(0, 5))).isEqualTo(SAMPLED);
    assertThat(composite.evaluate(spans(1, 1))).isEqualTo(NOT_SAMPLED);
    assertThat(List.of(first.asked, inverted.asked, third.asked)).containsExactly(2, 2, 2);
    PolicyEvaluator none =
        CompositePolicies.composite(new PolicyEvaluator[] {first}, new long[] {5}, 100);
    assertThat(none.evaluate(spans(0, 1))).isEqualTo(NOT_SAMPLED);
  }

  @Test
  void aSubPolicyBudgetNeverPassesTheTotal() {
    PolicyEvaluator composite =
        CompositePolicies.composite(new PolicyEvaluator[] {fixed(SAMPLED)}, new long[] {50}, 8);
    assertThat(composite.evaluate(spans(0, 9))).isEqualTo(NOT_SAMPLED);
    assertThat(composite.evaluate(spans(0, 8))).isEqualTo(SAMPLED);
  }

  @Test
  void aFailingSubPolicyFailsTheComposite() {
    Fixed later = fixed(SAMPLED);
    PolicyEvaluator composite =
        CompositePolicies.composite(
            new PolicyEvaluator[] {fixed(NOT_SAMPLED), fixed(ERROR), later},
            new long[] {5, 5, 5},
            100);
    assertThat(composite.evaluate(spans(0, 1))).isEqualTo(ERROR);
    assertThat(later.asked).isZero();
  }

  @Test
  void compositeFromConfigurationAsksInSubPolicyOrderWithinAllocatedShares() {
    PolicyConfig errors =
        Policy.ottl("errors", ErrorMode.PROPAGATE, List.of("IsMatch(name, \"error\")"), List.of());
    PolicyConfig everything =
        Policy.ottl("everything", ErrorMode.PROPAGATE, List.of("true"), List.of());
    PolicyConfig composite =
        Policy.composite(
            "composite",
            10,
            // Go reads no order from policy_order: composite_sub_policy's order decides.
            List.of("everything", "errors"),
            List.of(new PolicyConfig.RateAllocation("errors", 60)),
            errors,
            everything);
    assertThat(Policy.problems(composite)).isEmpty();
    PolicyEvaluator policy = Policies.compileOne(composite);
    TraceData error = Spans.trace(0, "error a", "b", "c", "d");
    TraceData plain = Spans.trace(0, "a", "b", "c");
    try {
      // errors: 6 spans a second; everything: 10 / 2 = 5.
      assertThat(policy.evaluate(error)).isEqualTo(SAMPLED);
      assertThat(policy.evaluate(error)).isEqualTo(NOT_SAMPLED);
      assertThat(policy.evaluate(plain)).isEqualTo(SAMPLED);
      assertThat(policy.evaluate(plain)).isEqualTo(NOT_SAMPLED);
      error.nowNanos = SECOND;
      plain.nowNanos = SECOND;
      assertThat(policy.evaluate(error)).isEqualTo(SAMPLED);
      assertThat(policy.evaluate(plain)).isEqualTo(SAMPLED);
    } finally {
      error.spans().clear();
      plain.spans().clear();
    }
  }

  @Test
  void anAndSpendsARateLimitOnlyOnTracesItsEarlierSubPoliciesSample() {
    PolicyConfig and =
        Policy.and(
            "errors-limited",
            Policy.ottl("errors", null, List.of("IsMatch(name, \"error\")"), List.of()),
            Policy.rateLimiting("limit", 2, 4));
    assertThat(Policy.problems(and)).isEmpty();
    PolicyEvaluator policy = Policies.compileOne(and);
    TraceData plain = Spans.trace(0, "a", "b", "c");
    TraceData error = Spans.trace(0, "error", "b");
    try {
      assertThat(policy.evaluate(plain)).isEqualTo(NOT_SAMPLED);
      assertThat(policy.evaluate(plain)).isEqualTo(NOT_SAMPLED);
      assertThat(policy.evaluate(error)).isEqualTo(SAMPLED);
      assertThat(policy.evaluate(error)).isEqualTo(SAMPLED);
      assertThat(policy.evaluate(error)).isEqualTo(NOT_SAMPLED);
    } finally {
      plain.spans().clear();
      error.spans().clear();
    }
  }
}
