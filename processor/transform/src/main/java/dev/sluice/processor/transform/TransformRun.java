package dev.sluice.processor.transform;

import dev.sluice.ottl.EvalContext;
import dev.sluice.ottl.OttlContext;
import dev.sluice.pdata.otlp.Batch;
import java.util.List;

/**
 * One thread's state for transforming: each group compiled for it, in order, with one item context
 * they share (a group's cache lives while it runs over one item, and starts empty for the next).
 */
final class TransformRun {
  private final GroupRun[] groups;
  private final Failures failures;
  private boolean failed;

  TransformRun(List<StatementGroup> groups, Failures failures) {
    this.failures = failures;
    EvalContext item = new EvalContext();
    this.groups = new GroupRun[groups.size()];
    for (int i = 0; i < this.groups.length; i++) {
      this.groups[i] = new GroupRun(groups.get(i), this, item);
    }
  }

  boolean isEmpty() {
    return groups.length == 0;
  }

  /**
   * Runs every group over the batch, each over the whole batch before the next, as the Collector
   * does; returns false when a failure under propagate stopped it.
   */
  boolean apply(Batch batch) {
    failed = false;
    for (GroupRun group : groups) {
      group.start();
      try {
        if (group.context == OttlContext.METRIC) {
          batch.visitMetrics(group.visitor);
        } else {
          batch.visit(group.visitor);
        }
      } finally {
        group.finish();
      }
      if (failed) {
        return false;
      }
    }
    return true;
  }

  Failures failures() {
    return failures;
  }

  void fail() {
    failed = true;
  }

  boolean failed() {
    return failed;
  }
}
