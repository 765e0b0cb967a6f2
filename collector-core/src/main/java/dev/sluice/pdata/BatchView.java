package dev.sluice.pdata;

import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.Overlay;
import dev.sluice.pdata.internal.Slice;
import dev.sluice.pdata.view.DataPointView;
import dev.sluice.pdata.view.LogRecordView;
import dev.sluice.pdata.view.MetricView;
import dev.sluice.pdata.view.ResourceView;
import dev.sluice.pdata.view.ScopeView;
import dev.sluice.pdata.view.SpanView;

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
   * once per part, each part seeing its own data points (the marshaler writes parts that continue
   * each other in one scope block as one metric, see {@link #itemCount}).
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

  /**
   * Items (spans, log records, metrics) of the batch as the marshaler writes it. Metric parts that
   * continue each other in consecutive slices of one scope block are written as one metric, so they
   * count once.
   */
  public static long itemCount(Batch batch) {
    if (batch.signal() != Signal.METRICS) {
      return batch.unitCount();
    }
    long count = 0;
    Slice previous = null;
    // Whether the previous slice ends in a part the marshaler writes that a slice beginning inside
    // the same metric adds its points to, and whether that metric has counted yet (it has not when
    // every point of it so far was dropped).
    boolean open = false;
    boolean counted = false;
    for (int i = 0; i < batch.sliceCount(); i++) {
      Slice slice = batch.slice(i);
      boolean continues = open && slice.scope() >= 0 && continuesMetric(previous, slice);
      previous = slice;
      open = false;
      if (slice.scope() < 0) {
        continue;
      }
      int from = slice.itemFrom();
      int to = slice.itemTo();
      if (from == to) {
        boolean kept = keepsPoints(slice, from, slice.pointFrom(), slice.pointTo());
        if (continues) {
          count += kept && !counted ? 1 : 0;
          counted |= kept;
          open = true;
        } else if (slice.pointTo() > slice.pointFrom()) {
          count += kept ? 1 : 0;
          counted = kept;
          open = true;
        }
        continue;
      }
      if (slice.pointFrom() > 0) {
        int points = slice.index().dataPointCount(from);
        if (continues) {
          count += !counted && keepsPoints(slice, from, slice.pointFrom(), points) ? 1 : 0;
        } else {
          count += visible(slice, from, slice.pointFrom(), points) ? 1 : 0;
        }
        from++;
      }
      count += wholeMetrics(slice, from, to);
      if (slice.pointTo() > 0) {
        counted = visible(slice, to, 0, slice.pointTo());
        count += counted ? 1 : 0;
        open = true;
      }
    }
    return count;
  }

  /**
   * Whether the slice begins inside the metric, of the same request, at which the previous slice
   * ends, the two in one scope block: the marshaler then writes both parts as one metric.
   */
  private static boolean continuesMetric(Slice previous, Slice slice) {
    return slice.index() == previous.index()
        && slice.itemFrom() == previous.itemTo()
        && slice.pointFrom() > 0
        && previous.pointTo() > 0
        && OtlpMarshaler.sameResource(previous, slice)
        && OtlpMarshaler.sameScope(previous, slice);
  }

  /** Whether points {@code [from, to)} of the metric are not empty and not all dropped. */
  private static boolean keepsPoints(Slice slice, int metric, int from, int to) {
    return to > from && visible(slice, metric, from, to);
  }

  /** Metrics {@code [from, to)} of the slice, each whole, that a visit did not drop. */
  private static long wholeMetrics(Slice slice, int from, int to) {
    if (slice.overlay() == null || !slice.overlay().dropsAnything()) {
      return to - from;
    }
    long count = 0;
    for (int m = from; m < to; m++) {
      count += visible(slice, m, 0, slice.index().dataPointCount(m)) ? 1 : 0;
    }
    return count;
  }

  /**
   * Whether the part {@code [from, to)} of the metric is written: not every point of it dropped
   * (or, for a metric without points, the metric not dropped).
   */
  @Internal
  public static boolean visible(Slice slice, int metric, int from, int to) {
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
