package dev.sluice.processor.tailsampling;

import dev.sluice.component.ConfigProblems;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The policies of a configuration, checked ({@link #validate}) and compiled ({@link #compile}), and
 * the final decision over their answers ({@link #decide}), as the OpenTelemetry Collector makes it.
 *
 * <p>Where each type may stand is the Collector's: any type at the top level; below {@code and},
 * {@code drop} and {@code composite} any type but {@code composite}, {@code and}, {@code drop}
 * (with {@code and} allowed under {@code composite}, and {@code not} under {@code and} and {@code
 * drop}); below {@code not} a plain policy.
 */
final class Policies {
  /** The plain types: those that decide from the trace alone. */
  static final Set<String> PLAIN =
      Set.of(
          "always_sample",
          "latency",
          "numeric_attribute",
          "probabilistic",
          "status_code",
          "string_attribute",
          "rate_limiting",
          "bytes_limiting",
          "span_count",
          "trace_state",
          "boolean_attribute",
          "ottl_condition",
          "trace_flags");

  /** A compiled top-level policy: its name for metrics, and whether it is a {@code drop}. */
  record Named(String name, boolean drop, PolicyEvaluator evaluator) {}

  private Policies() {}

  /** Checks the top-level policies: names given and unique, types known, each type's settings. */
  static void validate(List<PolicyConfig> policies, ConfigProblems problems) {
    Set<String> names = new HashSet<>();
    for (int i = 0; i < policies.size(); i++) {
      PolicyConfig policy = policies.get(i);
      ConfigProblems at = problems.item(i);
      if (policy.name() == null || policy.name().isEmpty()) {
        at.add("name", "every policy needs a name");
      } else if (!names.add(policy.name())) {
        at.add("name", "policy name \"" + policy.name() + "\" is used twice");
      }
      validateOne(policy, Level.TOP, at);
    }
  }

  /** Where a policy stands, which decides the types it may have. */
  enum Level {
    TOP,
    UNDER_COMPOSITE,
    UNDER_AND,
    UNDER_NOT
  }

  static void validateOne(PolicyConfig policy, Level level, ConfigProblems problems) {
    String type = policy.type();
    if (type == null || type.isEmpty()) {
      problems.add("type", "every policy needs a type");
      return;
    }
    boolean allowed =
        switch (type) {
          case "composite", "drop" -> level == Level.TOP;
          case "and" -> level == Level.TOP || level == Level.UNDER_COMPOSITE;
          case "not" -> level == Level.TOP || level == Level.UNDER_AND;
          default -> PLAIN.contains(type);
        };
    if (!PLAIN.contains(type) && !Set.of("composite", "drop", "and", "not").contains(type)) {
      problems.add("type", "unknown policy type \"" + type + "\"");
      return;
    }
    if (!allowed) {
      problems.add("type", "the policy type \"" + type + "\" cannot stand " + where(level));
      return;
    }
    switch (type) {
      case "composite", "and", "not", "drop" ->
          CompositePolicies.validate(policy, problems.under(type));
      case "rate_limiting", "bytes_limiting" -> RatePolicies.validate(policy, problems.under(type));
      case "ottl_condition" -> OttlPolicy.validate(policy.ottlCondition(), problems.under(type));
      case "numeric_attribute", "string_attribute", "boolean_attribute" ->
          AttributePolicies.validate(policy, problems.under(type));
      default -> SpanPolicies.validate(policy, problems.under(type));
    }
  }

  private static String where(Level level) {
    return switch (level) {
      case TOP -> "at the top level";
      case UNDER_COMPOSITE -> "under composite";
      case UNDER_AND -> "under and or drop";
      case UNDER_NOT -> "under not";
    };
  }

  /** The top-level policies, compiled, in order; the {@code drop} policies first. */
  static List<Named> compile(List<PolicyConfig> policies) {
    List<Named> drops = new ArrayList<>();
    List<Named> others = new ArrayList<>();
    for (PolicyConfig policy : policies) {
      Named named = new Named(policy.name(), "drop".equals(policy.type()), compileOne(policy));
      (named.drop() ? drops : others).add(named);
    }
    drops.addAll(others);
    return List.copyOf(drops);
  }

  /** One policy of any level, compiled; {@link #validateOne} has passed it. */
  static PolicyEvaluator compileOne(PolicyConfig policy) {
    return switch (policy.type()) {
      case "composite", "and", "not", "drop" -> CompositePolicies.compile(policy);
      case "rate_limiting", "bytes_limiting" -> RatePolicies.compile(policy);
      case "ottl_condition" -> OttlPolicy.compile(policy.ottlCondition());
      case "numeric_attribute", "string_attribute", "boolean_attribute" ->
          AttributePolicies.compile(policy);
      default -> SpanPolicies.compile(policy);
    };
  }
}
