package dev.sluice.processor.transform;

import dev.sluice.ottl.EvalContext;
import dev.sluice.ottl.OttlCache;
import dev.sluice.ottl.OttlContext;
import dev.sluice.pdata.Batch;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One thread's state for transforming: each group compiled for it, in order, with one item context
 * they share (a group's cache lives while it runs over one item, and starts empty for the next;
 * that of groups with {@code shared_cache: true} lives for the batch).
 */
final class TransformRun {
  private final GroupRun[] groups;
  // One cache per context for the groups with shared_cache: true, as the Collector keys them;
  // empty again for each batch.
  private final Map<OttlContext, OttlCache> sharedCaches = new EnumMap<>(OttlContext.class);
  private final Failures failures;
  private boolean failed;

  TransformRun(List<StatementGroup> groups, Failures failures) {
    this.failures = failures;
    EvalContext item = new EvalContext();
    this.groups = new GroupRun[groups.size()];
    for (int i = 0; i < this.groups.length; i++) {
      StatementGroup group = groups.get(i);
      OttlCache shared = null;
      if (group.sharedCache()) {
        shared = sharedCaches.computeIfAbsent(group.context(), c -> new OttlCache());
      }
      this.groups[i] = new GroupRun(group, this, item, shared);
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
    try {
      return applyGroups(batch);
    } finally {
      for (OttlCache cache : sharedCaches.values()) {
        cache.clear();
      }
    }
  }

  private boolean applyGroups(Batch batch) {
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
