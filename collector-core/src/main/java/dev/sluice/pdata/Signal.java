package dev.sluice.pdata;

import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.MessageSchema;
import dev.sluice.pdata.internal.OtlpSchema;

/**
 * The three OTLP signals. They share one shape (request, resource blocks, scope blocks, items), so
 * one indexer and one marshaler serve all three with the schemas named here.
 */
public enum Signal {
  TRACES(
      OtlpSchema.TRACES_REQUEST,
      OtlpSchema.RESOURCE_SPANS,
      OtlpSchema.SCOPE_SPANS,
      OtlpSchema.SPAN,
      "spans"),
  METRICS(
      OtlpSchema.METRICS_REQUEST,
      OtlpSchema.RESOURCE_METRICS,
      OtlpSchema.SCOPE_METRICS,
      OtlpSchema.METRIC,
      "data points"),
  LOGS(
      OtlpSchema.LOGS_REQUEST,
      OtlpSchema.RESOURCE_LOGS,
      OtlpSchema.SCOPE_LOGS,
      OtlpSchema.LOG_RECORD,
      "log records");

  private final MessageSchema request;
  private final MessageSchema resourceBlock;
  private final MessageSchema scopeBlock;
  private final MessageSchema item;
  private final String unitName;

  Signal(
      MessageSchema request,
      MessageSchema resourceBlock,
      MessageSchema scopeBlock,
      MessageSchema item,
      String unitName) {
    this.request = request;
    this.resourceBlock = resourceBlock;
    this.scopeBlock = scopeBlock;
    this.item = item;
    this.unitName = unitName;
  }

  /** {@code Export*ServiceRequest}. */
  @Internal
  public MessageSchema request() {
    return request;
  }

  /** {@code ResourceSpans}, {@code ResourceMetrics}, {@code ResourceLogs}. */
  @Internal
  public MessageSchema resourceBlock() {
    return resourceBlock;
  }

  /** {@code ScopeSpans}, {@code ScopeMetrics}, {@code ScopeLogs}. */
  @Internal
  public MessageSchema scopeBlock() {
    return scopeBlock;
  }

  /** {@code Span}, {@code Metric}, {@code LogRecord}. */
  @Internal
  public MessageSchema item() {
    return item;
  }

  /**
   * What batches of this signal are counted in: spans, log records, or metric data points (a metric
   * with no data points counts zero).
   */
  public String unitName() {
    return unitName;
  }
}
