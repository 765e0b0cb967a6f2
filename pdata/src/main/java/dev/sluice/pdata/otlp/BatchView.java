package dev.sluice.pdata.otlp;

/**
 * Reads every item of a {@link Batch} in place: one reusable set of flyweight views ({@link
 * ResourceView}, {@link ScopeView}, {@link SpanView}, {@link LogRecordView}, {@link MetricView},
 * {@link DataPointView}) is re-pointed at each item in turn, so a visit allocates nothing. Items
 * come in batch order, and only as far as the batch holds them: a slice that covers part of a
 * metric's data points shows only those, and units an edit dropped are not shown.
 *
 * <pre>{@code
 * BatchView views = new BatchView();           // once per thread
 * AttributeCursor attributes = new AttributeCursor();
 * views.forEachSpan(batch, (resource, scope, span) -> {
 *   if (span.attributes(attributes).find("http.route")) { ... }
 * });
 * }</pre>
 *
 * <p>Views read the items as the batch writes them: where an edit ({@link Batch#visit}) replaced an
 * item, a data point, a metric's header or a resource or scope header, the view reads the
 * replacement, so a processor sees what the ones before it did.
 *
 * <p><b>Validity.</b> A view, and every {@link TextView}, {@link AnyValueView} and cursor pointed
 * from it, reads the request's bytes (or the batch's replacement bytes) directly. It is valid only
 * while the batch is held by the caller, that is during the call that handed the batch over (an
 * exporter's {@code export}, a processor's {@code process}), and only until the visitor returns or
 * the view is re-pointed at the next item. Never keep a view, or anything read from it other than a
 * copied value or a {@code String} asked for explicitly, past that: the bytes may be released and
 * reused once the batch is let go. To keep a field, copy it ({@link TextView#copyTo}, {@link
 * SpanView#copyTraceId}) or decode it ({@link TextView#asString}).
 *
 * <p>Not thread-safe and not re-entrant: one visit at a time per instance, so a visitor must not
 * start another visit on the same instance. Several threads may read the same batch, each with its
 * own instance, since the bytes are never written after indexing. After a visit the instance's own
 * views let go of the batch's requests; a caller's cursors ({@link AttributeCursor}, {@link
 * SpanEventView}, ...) keep a reference to the last request they read until pointed elsewhere, so
 * keep them no longer than the {@code BatchView}.
 */
public final class BatchView {
  /** Told about each span. */
  @FunctionalInterface
  public interface SpanVisitor {
    void visit(ResourceView resource, ScopeView scope, SpanView span);
  }

  /** Told about each log record. */
  @FunctionalInterface
  public interface LogRecordVisitor {
    void visit(ResourceView resource, ScopeView scope, LogRecordView logRecord);
  }

  /** Told about each metric, or each part of a metric that slice boundaries cut. */
  @FunctionalInterface
  public interface MetricVisitor {
    void visit(ResourceView resource, ScopeView scope, MetricView metric);
  }

  /** Told about each data point the batch holds. */
  @FunctionalInterface
  public interface DataPointVisitor {
    void visit(ResourceView resource, ScopeView scope, MetricView metric, DataPointView point);
  }

  private final ResourceView resource = new ResourceView();
  private final ScopeView scope = new ScopeView();
  private final SpanView span = new SpanView();
  private final LogRecordView logRecord = new LogRecordView();
  private final MetricView metric = new MetricView();
  private final DataPointView point = new DataPointView();

  public BatchView() {}

  /** Visits every span of a traces batch, in order. */
  public void forEachSpan(Batch batch, SpanVisitor visitor) {
    checkSignal(batch, Signal.TRACES);
    try {
      visitSpans(batch, visitor);
    } finally {
      release();
    }
  }

  /** Visits every log record of a logs batch, in order. */
  public void forEachLogRecord(Batch batch, LogRecordVisitor visitor) {
    checkSignal(batch, Signal.LOGS);
    try {
      visitLogRecords(batch, visitor);
    } finally {
      release();
    }
  }

  private void visitSpans(Batch batch, SpanVisitor visitor) {
    for (int i = 0; i < batch.sliceCount(); i++) {
      Slice slice = batch.slice(i);
      if (slice.scope() < 0) {
        continue;
      }
      wrapHeaders(slice);
      for (int item = slice.itemFrom(); item < slice.itemTo(); item++) {
        if (slice.dropped(item)) {
          continue;
        }
        span.wrap(slice.index(), item, slice.overlay());
        visitor.visit(resource, scope, span);
      }
    }
  }

  private void visitLogRecords(Batch batch, LogRecordVisitor visitor) {
    for (int i = 0; i < batch.sliceCount(); i++) {
      Slice slice = batch.slice(i);
      if (slice.scope() < 0) {
        continue;
      }
      wrapHeaders(slice);
      for (int item = slice.itemFrom(); item < slice.itemTo(); item++) {
        if (slice.dropped(item)) {
          continue;
        }
        logRecord.wrap(slice.index(), item, slice.overlay());
        visitor.visit(resource, scope, logRecord);
      }
    }
  }

  /**
   * Visits every metric of a metrics batch, in order; a metric cut by slice boundaries is visited
   * once per part, each part seeing its own data points (as the marshaler writes it).
   */
  public void forEachMetric(Batch batch, MetricVisitor visitor) {
    checkSignal(batch, Signal.METRICS);
    try {
      visitMetrics(batch, visitor, null);
    } finally {
      release();
    }
  }

  /** Visits every data point of a metrics batch, in order, with the metric it belongs to. */
  public void forEachDataPoint(Batch batch, DataPointVisitor visitor) {
    checkSignal(batch, Signal.METRICS);
    try {
      visitMetrics(batch, null, visitor);
    } finally {
      release();
    }
  }

  /**
   * Resource blocks of the batch as the marshaler writes it: adjacent slices whose resource headers
   * are byte-equal make one block.
   */
  public static int resourceBlockCount(Batch batch) {
    int count = 0;
    Slice previous = null;
    for (int i = 0; i < batch.sliceCount(); i++) {
      Slice slice = batch.slice(i);
      if (previous == null || !OtlpMarshaler.sameResource(previous, slice)) {
        count++;
      }
      previous = slice;
    }
    return count;
  }

  /**
   * Scope blocks of the batch as the marshaler writes it: within a resource block, adjacent slices
   * whose scope headers are byte-equal make one block.
   */
  public static int scopeBlockCount(Batch batch) {
    int count = 0;
    Slice previous = null;
    for (int i = 0; i < batch.sliceCount(); i++) {
      Slice slice = batch.slice(i);
      boolean sameResource = previous != null && OtlpMarshaler.sameResource(previous, slice);
      if (slice.scope() >= 0
          && !(sameResource && previous.scope() >= 0 && OtlpMarshaler.sameScope(previous, slice))) {
        count++;
      }
      previous = slice;
    }
    return count;
  }

  /** Items (spans, log records, metric parts) of the batch as the marshaler writes it. */
  public static long itemCount(Batch batch) {
    if (batch.signal() != Signal.METRICS) {
      return batch.unitCount();
    }
    long count = 0;
    for (int i = 0; i < batch.sliceCount(); i++) {
      Slice slice = batch.slice(i);
      if (slice.scope() < 0) {
        continue;
      }
      if (slice.overlay() != null && slice.overlay().dropsAnything()) {
        count += visibleParts(slice);
      } else if (slice.itemFrom() == slice.itemTo()) {
        count += slice.pointTo() > slice.pointFrom() ? 1 : 0;
      } else {
        // A part cut at the front replaces the whole first metric; one cut at the end adds one.
        count += slice.itemTo() - slice.itemFrom() + (slice.pointTo() > 0 ? 1 : 0);
      }
    }
    return count;
  }

  /** The slice's metric parts that a visit did not drop, one by one. */
  private static long visibleParts(Slice slice) {
    long count = 0;
    int lastMetric = slice.pointTo() > 0 ? slice.itemTo() : slice.itemTo() - 1;
    OtlpIndex index = slice.index();
    for (int m = slice.itemFrom(); m <= lastMetric; m++) {
      int from = m == slice.itemFrom() ? slice.pointFrom() : 0;
      int to = m == slice.itemTo() ? slice.pointTo() : index.dataPointCount(m);
      count += visible(slice, m, from, to) ? 1 : 0;
    }
    return count;
  }

  /**
   * Whether the part {@code [from, to)} of the metric is written: not every point of it dropped
   * (or, for a metric without points, the metric not dropped).
   */
  static boolean visible(Slice slice, int metric, int from, int to) {
    Overlay overlay = slice.overlay();
    if (overlay == null) {
      return true;
    }
    if (to <= from) {
      return !overlay.metricDropped(metric);
    }
    if (slice.droppedUnits() == 0) {
      return true;
    }
    int firstRow = slice.index().metric(metric, OtlpIndex.M_DP_FIRST);
    return overlay.droppedIn(firstRow + from, firstRow + to) < to - from;
  }

  private void visitMetrics(Batch batch, MetricVisitor metrics, DataPointVisitor points) {
    for (int i = 0; i < batch.sliceCount(); i++) {
      Slice slice = batch.slice(i);
      if (slice.scope() < 0) {
        continue;
      }
      wrapHeaders(slice);
      OtlpIndex index = slice.index();
      int from = slice.itemFrom();
      int to = slice.itemTo();
      if (from == to) {
        if (slice.pointTo() > slice.pointFrom()) {
          visitMetric(slice, from, slice.pointFrom(), slice.pointTo(), metrics, points);
        }
        continue;
      }
      if (slice.pointFrom() > 0) {
        visitMetric(slice, from, slice.pointFrom(), index.dataPointCount(from), metrics, points);
        from++;
      }
      for (int m = from; m < to; m++) {
        visitMetric(slice, m, 0, index.dataPointCount(m), metrics, points);
      }
      if (slice.pointTo() > 0) {
        visitMetric(slice, to, 0, slice.pointTo(), metrics, points);
      }
    }
  }

  private void visitMetric(
      Slice slice,
      int item,
      int pointFrom,
      int pointTo,
      MetricVisitor metrics,
      DataPointVisitor points) {
    if (!visible(slice, item, pointFrom, pointTo)) {
      return;
    }
    metric.wrap(slice.index(), item, pointFrom, pointTo, slice.overlay(), null);
    if (metrics != null) {
      metrics.visit(resource, scope, metric);
      return;
    }
    metric.dataPoints(point);
    while (point.next()) {
      points.visit(resource, scope, metric, point);
    }
  }

  /** After a visit: the views no longer keep the batch's requests reachable. */
  private void release() {
    resource.release();
    scope.release();
    span.release();
    logRecord.release();
    metric.release();
    point.release();
  }

  private void wrapHeaders(Slice slice) {
    resource.wrap(slice.index(), slice.resource(), slice.overlay());
    scope.wrap(slice.index(), slice.scope(), slice.overlay());
  }

  private static void checkSignal(Batch batch, Signal expected) {
    if (batch.signal() != expected) {
      throw new IllegalArgumentException(
          "a " + batch.signal() + " batch has no " + expected.unitName());
    }
  }
}
