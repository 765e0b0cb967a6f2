package dev.sluice.processor.tailsampling;

import dev.sluice.component.ConfigProblems;
import dev.sluice.processor.tailsampling.Policies.Level;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The policies made of other policies, deciding as the OpenTelemetry Collector's do (v0.161.0):
 *
 * <ul>
 *   <li>{@code and}: samples when every sub-policy samples; the sub-policies are asked in order and
 *       the first that does not sample ends it (those after it are not asked, so a rate limiter
 *       after it spends nothing).
 *   <li>{@code not}: the sub-policy's sampled and not sampled swapped; an inverted answer passes
 *       unchanged.
 *   <li>{@code drop}: {@link Decision#DROPPED} when every sub-policy samples, as {@code and} asks
 *       them.
 *   <li>{@code composite}: the sub-policies are asked in the order of {@code composite_sub_policy}
 *       (the Collector reads {@code policy_order} nowhere; here it is only checked); the first that
 *       samples decides: sampled if its spans this second, with the trace's, stay within its budget
 *       and within {@code max_total_spans_per_second}, otherwise not sampled. The budgets restart
 *       at each whole second of the decision clock.
 * </ul>
 *
 * A sub-policy that fails ({@link Decision#ERROR}) makes the whole policy fail, as in Go.
 */
final class CompositePolicies {
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private CompositePolicies() {}

  static void validate(PolicyConfig policy, ConfigProblems problems) {
    switch (policy.type()) {
      case "and" -> validateAll(andSubs(policy), "and_sub_policy", Level.UNDER_AND, problems);
      case "drop" -> validateAll(dropSubs(policy), "drop_sub_policy", Level.UNDER_AND, problems);
      case "not" -> {
        PolicyConfig sub = policy.not() == null ? null : policy.not().notSubPolicy();
        if (sub == null) {
          problems.add("not_sub_policy", "missing: a not policy needs the policy it turns around");
        } else {
          Policies.validateOne(sub, Level.UNDER_NOT, problems.under("not_sub_policy"));
        }
      }
      default -> validateComposite(composite(policy), problems);
    }
  }

  private static void validateAll(
      List<PolicyConfig> subs, String key, Level level, ConfigProblems problems) {
    // The Collector takes an empty list, and then an and samples and a drop drops every trace.
    if (subs.isEmpty()) {
      problems.add(key, "no sub-policies: name at least one");
      return;
    }
    for (int i = 0; i < subs.size(); i++) {
      Policies.validateOne(subs.get(i), level, problems.under(key).item(i));
    }
  }

  private static void validateComposite(PolicyConfig.Composite composite, ConfigProblems problems) {
    if (composite.maxTotalSpansPerSecond() < 1) {
      problems.add(
          "max_total_spans_per_second",
          "must be at least 1 (spans per second), was " + composite.maxTotalSpansPerSecond());
    }
    List<PolicyConfig> subs = composite.compositeSubPolicy();
    validateAll(subs, "composite_sub_policy", Level.UNDER_COMPOSITE, problems);
    Set<String> names = new HashSet<>();
    for (int i = 0; i < subs.size(); i++) {
      String name = subs.get(i).name();
      if (name != null && !name.isEmpty() && !names.add(name)) {
        problems
            .under("composite_sub_policy")
            .item(i)
            .add(
                "name",
                "sub-policy name \""
                    + name
                    + "\" is used twice: policy_order and rate_allocation"
                    + " name sub-policies by it");
      }
    }
    Set<String> ordered = new HashSet<>();
    List<String> order = composite.policyOrder();
    for (int i = 0; i < order.size(); i++) {
      String name = order.get(i);
      if (!names.contains(name)) {
        problems
            .under("policy_order")
            .item(i)
            .add("", "names no sub-policy: \"" + name + "\"; the sub-policies are " + names(subs));
      } else if (!ordered.add(name)) {
        problems.under("policy_order").item(i).add("", "\"" + name + "\" is listed twice");
      }
    }
    Set<String> allocated = new HashSet<>();
    long total = 0;
    List<PolicyConfig.RateAllocation> allocations = composite.rateAllocation();
    for (int i = 0; i < allocations.size(); i++) {
      PolicyConfig.RateAllocation allocation = allocations.get(i);
      ConfigProblems at = problems.under("rate_allocation").item(i);
      if (allocation.policy() == null || !names.contains(allocation.policy())) {
        at.add(
            "policy",
            "names no sub-policy: \""
                + allocation.policy()
                + "\"; the sub-policies are "
                + names(subs));
      } else if (!allocated.add(allocation.policy())) {
        at.add("policy", "\"" + allocation.policy() + "\" is given a share twice");
      }
      // The Collector gives a share of 0 or less the equal share instead: refused as misleading.
      if (allocation.percent() < 1 || allocation.percent() > 100) {
        at.add(
            "percent",
            "must be 1 to 100, was "
                + allocation.percent()
                + " (a sub-policy left out of rate_allocation gets an equal share)");
      } else {
        total += allocation.percent();
      }
    }
    if (total > 100) {
      problems.add("rate_allocation", "the percents add up to " + total + ", more than 100");
    }
  }

  private static String names(List<PolicyConfig> subs) {
    StringBuilder names = new StringBuilder();
    for (PolicyConfig sub : subs) {
      if (sub.name() != null && !sub.name().isEmpty()) {
        names.append(names.length() == 0 ? "" : ", ").append('"').append(sub.name()).append('"');
      }
    }
    return names.length() == 0 ? "unnamed" : names.toString();
  }

  static PolicyEvaluator compile(PolicyConfig policy) {
    return switch (policy.type()) {
      case "and" -> and(compileAll(andSubs(policy)));
      case "drop" -> drop(compileAll(dropSubs(policy)));
      case "not" -> not(Policies.compileOne(policy.not().notSubPolicy()));
      default -> {
        PolicyConfig.Composite composite = composite(policy);
        yield composite(
            compileAll(composite.compositeSubPolicy()),
            budgets(composite),
            composite.maxTotalSpansPerSecond());
      }
    };
  }

  private static PolicyEvaluator[] compileAll(List<PolicyConfig> subs) {
    PolicyEvaluator[] evaluators = new PolicyEvaluator[subs.size()];
    for (int i = 0; i < evaluators.length; i++) {
      evaluators[i] = Policies.compileOne(subs.get(i));
    }
    return evaluators;
  }

  /** Samples when every one of {@code subs}, asked in order, samples. */
  static PolicyEvaluator and(PolicyEvaluator... subs) {
    return new All(subs.clone(), Decision.SAMPLED);
  }

  /** {@link Decision#DROPPED} when every one of {@code subs}, asked in order, samples. */
  static PolicyEvaluator drop(PolicyEvaluator... subs) {
    return new All(subs.clone(), Decision.DROPPED);
  }

  /** {@code sub}'s sampled and not sampled swapped; its other answers unchanged. */
  static PolicyEvaluator not(PolicyEvaluator sub) {
    return new Not(sub);
  }

  private record Not(PolicyEvaluator sub) implements PolicyEvaluator {
    @Override
    public Decision evaluate(TraceData trace) {
      Decision decision = sub.evaluate(trace);
      return switch (decision) {
        case SAMPLED -> Decision.NOT_SAMPLED;
        case NOT_SAMPLED -> Decision.SAMPLED;
        default -> decision;
      };
    }
  }

  /**
   * The first of {@code subs} that samples decides, within its spans per second ({@code budgets},
   * in the same order) and {@code maxTotal}.
   */
  static PolicyEvaluator composite(PolicyEvaluator[] subs, long[] budgets, long maxTotal) {
    return new Composite(subs.clone(), budgets.clone(), maxTotal);
  }

  /** {@code and} and {@code drop}: {@code allSample} when every sub-policy samples. */
  private record All(PolicyEvaluator[] subs, Decision allSample) implements PolicyEvaluator {
    @Override
    public Decision evaluate(TraceData trace) {
      for (PolicyEvaluator sub : subs) {
        Decision decision = sub.evaluate(trace);
        if (decision == Decision.ERROR) {
          return Decision.ERROR;
        }
        if (decision == Decision.NOT_SAMPLED || decision == Decision.INVERT_NOT_SAMPLED) {
          return Decision.NOT_SAMPLED;
        }
      }
      return allSample;
    }
  }

  /**
   * Each sub-policy's spans per second, as the Collector works them out in doubles: its percent of
   * the total when {@code rate_allocation} gives it one above 0, otherwise the total divided by the
   * number of sub-policies (all of them, allocated or not); cut to a whole number.
   */
  static long[] budgets(PolicyConfig.Composite composite) {
    List<PolicyConfig> subs = composite.compositeSubPolicy();
    double total = composite.maxTotalSpansPerSecond();
    double equalShare = total / subs.size();
    Map<String, Long> percents = new HashMap<>();
    for (PolicyConfig.RateAllocation allocation : composite.rateAllocation()) {
      percents.put(allocation.policy(), allocation.percent());
    }
    long[] budgets = new long[subs.size()];
    for (int i = 0; i < budgets.length; i++) {
      Long percent = percents.get(subs.get(i).name() == null ? "" : subs.get(i).name());
      double share = percent != null && percent > 0 ? ((double) percent / 100) * total : equalShare;
      budgets[i] = (long) share;
    }
    return budgets;
  }

  /** {@code composite}: the first sub-policy that samples spends from its budget for the second. */
  private static final class Composite implements PolicyEvaluator {
    private final PolicyEvaluator[] subs;
    private final long[] budgets;
    private final long maxTotal;
    private final long[] spentThisSecond;
    // As in Go, the counts start at 0 for second 0.
    private long second;

    Composite(PolicyEvaluator[] subs, long[] budgets, long maxTotal) {
      this.subs = subs;
      this.budgets = budgets;
      this.maxTotal = maxTotal;
      this.spentThisSecond = new long[subs.length];
    }

    @Override
    public Decision evaluate(TraceData trace) {
      long now = Math.floorDiv(trace.nowNanos(), NANOS_PER_SECOND);
      if (now != second) {
        second = now;
        Arrays.fill(spentThisSecond, 0);
      }
      for (int i = 0; i < subs.length; i++) {
        Decision decision = subs[i].evaluate(trace);
        if (decision == Decision.ERROR) {
          return Decision.ERROR;
        }
        if (decision == Decision.SAMPLED || decision == Decision.INVERT_SAMPLED) {
          long spent = spentThisSecond[i] + trace.spanCount();
          if (spent <= budgets[i] && spent <= maxTotal) {
            spentThisSecond[i] = spent;
            return Decision.SAMPLED;
          }
          // Nothing spent: a smaller trace may still fit this second.
          return Decision.NOT_SAMPLED;
        }
      }
      return Decision.NOT_SAMPLED;
    }
  }

  private static List<PolicyConfig> andSubs(PolicyConfig policy) {
    return policy.and() == null || policy.and().andSubPolicy() == null
        ? List.of()
        : policy.and().andSubPolicy();
  }

  private static List<PolicyConfig> dropSubs(PolicyConfig policy) {
    return policy.drop() == null || policy.drop().dropSubPolicy() == null
        ? List.of()
        : policy.drop().dropSubPolicy();
  }

  private static PolicyConfig.Composite composite(PolicyConfig policy) {
    PolicyConfig.Composite composite = policy.composite();
    if (composite == null) {
      return new PolicyConfig.Composite(0, List.of(), List.of(), List.of());
    }
    return new PolicyConfig.Composite(
        composite.maxTotalSpansPerSecond(),
        composite.policyOrder() == null ? List.of() : composite.policyOrder(),
        composite.compositeSubPolicy() == null ? List.of() : composite.compositeSubPolicy(),
        composite.rateAllocation() == null ? List.of() : composite.rateAllocation());
  }
}
