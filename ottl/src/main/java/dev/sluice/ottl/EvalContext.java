package dev.sluice.ottl;

import dev.sluice.pdata.otlp.BatchItem;
import dev.sluice.pdata.otlp.DataPointView;
import dev.sluice.pdata.otlp.LogRecordView;
import dev.sluice.pdata.otlp.MetricView;
import dev.sluice.pdata.otlp.ResourceView;
import dev.sluice.pdata.otlp.ScopeView;
import dev.sluice.pdata.otlp.SpanEventView;
import dev.sluice.pdata.otlp.SpanView;

/**
 * The item a condition is evaluated over: the views of it and of what is around it. The caller
 * points it at each item in turn (only the views of its context need be set); the views are valid
 * only while their visit lasts, so neither is this. Not thread-safe.
 */
public final class EvalContext {
  private ResourceView resource;
  private ScopeView scope;
  // With an item, its resource and scope views are asked for only when a path reads them.
  private BatchItem item;
  SpanView span;
  SpanEventView spanEvent;
  LogRecordView logRecord;
  MetricView metric;
  DataPointView dataPoint;

  public EvalContext() {}

  /** The resource and scope of the item's block. */
  public EvalContext block(ResourceView resource, ScopeView scope) {
    this.item = null;
    this.resource = resource;
    this.scope = scope;
    return this;
  }

  /**
   * The block of the item a {@link dev.sluice.pdata.otlp.Batch#visit} is at: its resource and scope
   * views are read from the item when a path first needs them, so that conditions on the item alone
   * do not pay for them.
   */
  public EvalContext block(BatchItem item) {
    this.item = item;
    this.resource = null;
    this.scope = null;
    return this;
  }

  ResourceView resource() {
    if (resource == null && item != null) {
      resource = item.resourceView();
    }
    return resource;
  }

  ScopeView scope() {
    if (scope == null && item != null) {
      scope = item.scopeView();
    }
    return scope;
  }

  public EvalContext span(SpanView span) {
    this.span = span;
    return this;
  }

  public EvalContext spanEvent(SpanEventView spanEvent) {
    this.spanEvent = spanEvent;
    return this;
  }

  public EvalContext logRecord(LogRecordView logRecord) {
    this.logRecord = logRecord;
    return this;
  }

  public EvalContext metric(MetricView metric) {
    this.metric = metric;
    return this;
  }

  public EvalContext dataPoint(DataPointView dataPoint) {
    this.dataPoint = dataPoint;
    return this;
  }

  /** Lets go of every view, so that none keeps a request reachable after its visit. */
  public void clear() {
    item = null;
    resource = null;
    scope = null;
    span = null;
    spanEvent = null;
    logRecord = null;
    metric = null;
    dataPoint = null;
  }
}
