package dev.sluice.processor.transform;

import dev.sluice.ottl.ErrorMode;
import dev.sluice.ottl.EvalContext;
import dev.sluice.ottl.OttlCache;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlContext;
import dev.sluice.ottl.OttlStatement;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.view.SpanEventView;
import dev.sluice.pdata.view.SpanView;

/**
 * One group compiled for one thread, with its visitor: points the context at each item of the
 * group's context (each resource or scope block once) and runs the statements over it when a
 * condition holds. A failure goes to {@link Failures}; under propagate the rest of the batch is
 * skipped and the run marked failed.
 */
final class GroupRun {
  final OttlContext context;
  private final ErrorMode errorMode;
  private final OttlCondition[] conditions;
  private final OttlCondition.Evaluator[] evaluators;
  private final OttlStatement[] statements;
  private final OttlStatement.Executor[] executors;
  private final TransformRun run;
  private final EvalContext item;
  // The walk over a span's events, for a span event group.
  private final SpanEventView events = new SpanEventView();
  // The block last run in this visit, so that a resource or scope group runs once per block.
  private OtlpIndex lastRequest;
  private int lastBlock = -1;

  final ItemVisitor visitor = this::visit;

  /** The cache this group shares with others for a batch, or null for its own per item. */
  private final OttlCache sharedCache;

  GroupRun(StatementGroup group, TransformRun run, EvalContext item, OttlCache sharedCache) {
    this.context = group.context();
    this.sharedCache = sharedCache;
    this.errorMode = group.errorMode();
    this.conditions = group.conditions().toArray(new OttlCondition[0]);
    this.evaluators = new OttlCondition.Evaluator[conditions.length];
    for (int i = 0; i < conditions.length; i++) {
      evaluators[i] = conditions[i].newEvaluator();
    }
    this.statements = group.statements().toArray(new OttlStatement[0]);
    this.executors = new OttlStatement.Executor[statements.length];
    for (int i = 0; i < statements.length; i++) {
      executors[i] = statements[i].newExecutor();
    }
    this.run = run;
    this.item = item;
  }

  /** Before each visit of a batch. */
  void start() {
    lastRequest = null;
    lastBlock = -1;
    item.sharedCache(sharedCache);
  }

  /** After the visit: lets go of the batch. */
  void finish() {
    lastRequest = null;
    item.clear();
  }

  private void visit(BatchItem at) {
    if (run.failed()) {
      return;
    }
    switch (context) {
      case RESOURCE, SCOPE -> {
        int block = context == OttlContext.RESOURCE ? at.resource() : at.scope();
        if (at.request() == lastRequest && block == lastBlock) {
          return;
        }
        lastRequest = at.request();
        lastBlock = block;
        item.block(at);
      }
      case SPANEVENT -> {
        visitEvents(at);
        return;
      }
      case SPAN -> item.block(at).span(at.span());
      case LOG -> item.block(at).logRecord(at.logRecord());
      case METRIC -> item.block(at).metric(at.metric());
      case DATAPOINT -> item.block(at).metric(at.metric()).dataPoint(at.dataPoint());
      default -> throw new IllegalStateException("not run: " + context);
    }
    runStatements();
  }

  /**
   * Each event of the span in turn, conditions and statements per event, as the Collector's span
   * event context does. An edit writes the span anew and moves {@link #events} to the same event in
   * the new bytes, so the walk goes on with the next.
   */
  private void visitEvents(BatchItem at) {
    SpanView span = at.span();
    item.block(at).span(span);
    span.events(events);
    int index = 0;
    while (events.next()) {
      item.spanEvent(events, index++);
      runStatements();
      if (run.failed()) {
        return;
      }
    }
  }

  private void runStatements() {
    if (conditions.length > 0 && !anyCondition()) {
      return;
    }
    for (int i = 0; i < executors.length; i++) {
      try {
        executors[i].execute(item);
      } catch (RuntimeException e) {
        if (!run.failures().failed(errorMode, "statement", statements[i].text(), e)) {
          run.fail();
          return;
        }
      }
    }
  }

  private boolean anyCondition() {
    for (int i = 0; i < evaluators.length; i++) {
      try {
        if (evaluators[i].matches(item)) {
          return true;
        }
      } catch (RuntimeException e) {
        if (!run.failures().failed(errorMode, "condition", conditions[i].text(), e)) {
          run.fail();
          return false;
        }
      }
    }
    return false;
  }
}
