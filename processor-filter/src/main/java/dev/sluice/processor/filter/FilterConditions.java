package dev.sluice.processor.filter;

import dev.sluice.ottl.ErrorMode;
import dev.sluice.ottl.OttlCondition;
import java.util.List;

/** The compiled conditions of a filter, per context, and its error mode. Immutable and shared. */
record FilterConditions(
    ErrorMode errorMode,
    List<OttlCondition> span,
    List<OttlCondition> spanEvent,
    List<OttlCondition> metric,
    List<OttlCondition> dataPoint,
    List<OttlCondition> logRecord) {
  FilterConditions {
    span = List.copyOf(span);
    spanEvent = List.copyOf(spanEvent);
    metric = List.copyOf(metric);
    dataPoint = List.copyOf(dataPoint);
    logRecord = List.copyOf(logRecord);
  }
}
