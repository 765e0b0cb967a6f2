package dev.sluice.processor.tailsampling;

import dev.sluice.component.ConfigProblems;

/** STUB: to be written. */
final class SpanPolicies {
  private SpanPolicies() {}

  static void validate(PolicyConfig policy, ConfigProblems problems) {}

  static PolicyEvaluator compile(PolicyConfig policy) {
    throw new UnsupportedOperationException(policy.type());
  }
}
