package dev.sluice.processor.filter;

import dev.sluice.ottl.EvalContext;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.view.SpanEventView;
import dev.sluice.pdata.view.SpanView;
import java.util.Arrays;
import java.util.function.Predicate;

/**
 * One thread's state for filtering: the conditions compiled for it, the item context and cursors,
 * and the visitors (made once, so a visit allocates nothing). Each visitor evaluates the item it is
 * shown and drops it when a condition of its context matches.
 */
final class FilterRun {
  private static final int INITIAL_EVENT_MARKS = 16;

  private final Failures failures;
  final ConditionList span;
  final ConditionList spanEvent;
  final ConditionList metric;
  final ConditionList dataPoint;
  final ConditionList logRecord;

  private final EvalContext context = new EvalContext();
  private final SpanEventView events = new SpanEventView();
  private int[] droppedEvents = new int[INITIAL_EVENT_MARKS];
  private int dropCount;
  private int eventIndex;
  private int nextDrop;
  private final Predicate<SpanEventView> eventDropped = this::eventDropped;
  private boolean failed;

  final ItemVisitor spanVisitor = this::visitSpan;
  final ItemVisitor logRecordVisitor = this::visitLogRecord;
  final ItemVisitor metricVisitor = this::visitMetric;
  final ItemVisitor dataPointVisitor = this::visitDataPoint;
  final ItemVisitor emptyMetricVisitor = FilterRun::dropIfEmpty;

  FilterRun(FilterConditions conditions, Failures failures) {
    this.failures = failures;
    this.span = new ConditionList(conditions.span());
    this.spanEvent = new ConditionList(conditions.spanEvent());
    this.metric = new ConditionList(conditions.metric());
    this.dataPoint = new ConditionList(conditions.dataPoint());
    this.logRecord = new ConditionList(conditions.logRecord());
  }

  /** Before a batch. */
  void start() {
    failed = false;
  }

  /** After a batch: the context lets go of the batch's views. */
  void finish() {
    context.clear();
  }

  /** Under {@code error_mode: propagate}, a condition failed: the rest of the batch is skipped. */
  void fail() {
    failed = true;
  }

  boolean failed() {
    return failed;
  }

  private void visitSpan(BatchItem item) {
    if (failed) {
      return;
    }
    SpanView view = item.span();
    context.block(item).span(view);
    if (span.anyMatches(context, failures, this)) {
      item.drop();
      return;
    }
    if (spanEvent.isEmpty() || failed) {
      return;
    }
    view.events(events);
    int index = 0;
    dropCount = 0;
    context.spanEvent(events);
    while (events.next()) {
      if (spanEvent.anyMatches(context, failures, this)) {
        if (dropCount == droppedEvents.length) {
          droppedEvents = Arrays.copyOf(droppedEvents, 2 * dropCount);
        }
        droppedEvents[dropCount++] = index;
      }
      if (failed) {
        return;
      }
      index++;
    }
    if (dropCount > 0) {
      // Decided above, event by event, so that a condition failing under propagate leaves the
      // span as it was; the editor shows the span's events in the same order.
      eventIndex = 0;
      nextDrop = 0;
      item.editSpan().removeEvents(eventDropped);
    }
  }

  /** Whether the span's next event, in order, is one the span event conditions matched. */
  private boolean eventDropped(SpanEventView event) {
    int index = eventIndex++;
    if (nextDrop < dropCount && droppedEvents[nextDrop] == index) {
      nextDrop++;
      return true;
    }
    return false;
  }

  private void visitLogRecord(BatchItem item) {
    if (failed) {
      return;
    }
    context.block(item).logRecord(item.logRecord());
    if (logRecord.anyMatches(context, failures, this)) {
      item.drop();
    }
  }

  private void visitMetric(BatchItem item) {
    if (failed) {
      return;
    }
    context.block(item).metric(item.metric());
    if (metric.anyMatches(context, failures, this)) {
      item.drop();
    }
  }

  private void visitDataPoint(BatchItem item) {
    if (failed) {
      return;
    }
    context.block(item).metric(item.metric()).dataPoint(item.dataPoint());
    if (dataPoint.anyMatches(context, failures, this)) {
      item.drop();
    }
  }

  /** A metric whose data points the data point conditions all dropped is dropped, as in Go. */
  private static void dropIfEmpty(BatchItem item) {
    if (item.metric().dataPointCount() == 0) {
      item.drop();
    }
  }
}
