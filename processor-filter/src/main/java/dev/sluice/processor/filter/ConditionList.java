package dev.sluice.processor.filter;

import dev.sluice.ottl.EvalContext;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlEvaluationException;
import java.util.List;

/**
 * The conditions of one context, compiled for one thread: an item matches when any of them does. A
 * condition that fails for an item goes to {@link Failures}, which says whether to go on.
 */
final class ConditionList {
  private final OttlCondition[] conditions;
  private final OttlCondition.Evaluator[] evaluators;

  ConditionList(List<OttlCondition> conditions) {
    this.conditions = conditions.toArray(new OttlCondition[0]);
    // Compiled together, the span conditions read each span's attributes in one walk.
    this.evaluators =
        OttlCondition.newEvaluators(conditions).toArray(new OttlCondition.Evaluator[0]);
  }

  boolean isEmpty() {
    return evaluators.length == 0;
  }

  /**
   * Whether any condition matches the item; a failed condition counts as not matched (ignore,
   * silent), or stops the evaluation and marks the run failed (propagate).
   */
  boolean anyMatches(EvalContext item, Failures failures, FilterRun run) {
    for (int i = 0; i < evaluators.length; i++) {
      try {
        if (evaluators[i].matches(item)) {
          return true;
        }
      } catch (OttlEvaluationException e) {
        if (!failures.failed(conditions[i], e, run)) {
          return false;
        }
      }
    }
    return false;
  }
}
