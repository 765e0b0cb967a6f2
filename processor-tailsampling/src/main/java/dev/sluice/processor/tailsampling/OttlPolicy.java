package dev.sluice.processor.tailsampling;

import dev.sluice.component.ConfigProblems;

/** STUB: to be written. */
final class OttlPolicy {
  private OttlPolicy() {}

  static void validate(PolicyConfig.OttlCondition condition, ConfigProblems problems) {}

  static PolicyEvaluator compile(PolicyConfig.OttlCondition condition) {
    throw new UnsupportedOperationException("ottl_condition");
  }
}
