package dev.sluice.connector.spanmetrics;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.ScopeView;
import dev.sluice.pdata.view.SpanEventView;
import dev.sluice.pdata.view.SpanFieldScan;
import dev.sluice.pdata.view.SpanView;
import dev.sluice.pdata.view.TextView;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

/**
 * The connector's state and the work of counting spans into it: per resource, a series table per
 * metric ({@code calls}, {@code duration}, {@code events}), each series found by hashing its key
 * bytes. A span is read through the views: its name, kind, status and times from its {@link
 * SpanView}, its dimension attributes in one {@link SpanFieldScan} walk, copied into a reused key
 * buffer; once its series exist, counting a span allocates nothing.
 *
 * <p>Not thread-safe: the connector calls it under its lock.
 */
final class Aggregator {
  private final SpanMetricsConfig config;
  final KeyLayout layout;
  private final boolean delta;
  private final double unitNanos;
  private final double[] bounds;
  private final boolean histogram;
  private final boolean exemplars;
  private final byte[][] includedScopes;
  private final SeriesTable.Shape sumShape;
  private final SeriesTable.Shape histogramShape;
  private final long seriesExpirationNanos;
  private final long metricsExpirationNanos;

  final ResourceTable resources;

  // Reused span after span.
  private final SpanFieldScan scan = new SpanFieldScan();
  private final int[] slots;
  private final KeyBuffer key = new KeyBuffer();
  private final KeyBuffer eventKey = new KeyBuffer();
  private final ValueCodec codec = new ValueCodec();
  private final AttributeCursor cursor = new AttributeCursor();
  private final AttributeCursor eventCursor = new AttributeCursor();
  private final SpanEventView eventView = new SpanEventView();
  private final SamplingThreshold sampling;
  private final ItemVisitor countSpan = this::countSpan;
  private final ItemVisitor findResource = this::findResource;

  // The resource block being read, and its state (null: no service.name, its spans are skipped).
  private final ResourceBlock block;
  private OtlpIndex blockRequest;
  private int blockResource = -1;
  private ResourceState state;

  // The scope block being read: the key bytes it adds (a 0, or a 1 with its name and version).
  private final KeyBuffer scopePart = new KeyBuffer();
  private int blockScope = -1;

  // The batch being counted, for resources seen by findResource.
  private int newResources;
  private final KeyBuffer newIdentities = new KeyBuffer();
  private long[] newHashes = new long[8];
  private int[] newFrom = new int[8];

  private long nowNanos;
  private long nowUnixNanos;

  /**
   * @param seed of the random rounding of fractional adjusted counts ({@link SamplingThreshold})
   */
  Aggregator(SpanMetricsConfig config, long seed) {
    this.config = config;
    this.sampling = new SamplingThreshold(seed);
    this.layout = new KeyLayout(config);
    this.delta = config.delta();
    SpanMetricsConfig.HistogramConfig h = config.histogram();
    this.unitNanos = "s".equals(h.unit()) ? 1e9 : 1e6;
    this.histogram = !h.disable();
    this.bounds = histogram && h.exponential() == null ? bounds(h, unitNanos) : null;
    this.exemplars = config.exemplars().enabled();
    int maxExemplars = exemplars ? config.exemplars().maxPerDataPoint() : 0;
    this.sumShape = new SeriesTable.Shape(0, 0, maxExemplars);
    this.histogramShape =
        new SeriesTable.Shape(
            bounds != null ? bounds.length + 1 : 0,
            h.exponential() != null ? h.exponential().effectiveMaxSize() : 0,
            maxExemplars);
    this.includedScopes = utf8(config.includeInstrumentationScope());
    this.block =
        new ResourceBlock(
            layout.utf8Names,
            config.resourceMetricsKeyAttributes().isEmpty()
                ? null
                : utf8(config.resourceMetricsKeyAttributes()));
    this.seriesExpirationNanos = config.seriesExpiration().toNanos();
    this.metricsExpirationNanos = config.metricsExpiration().toNanos();
    this.resources = new ResourceTable(config.resourceMetricsCacheSize());
    this.slots = new int[layout.names.length];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = scan.key(layout.utf8Names[i]);
    }
  }

  /** The default buckets in milliseconds, as the Collector's connector has them. */
  static final double[] DEFAULT_BOUNDS_MS = {
    2, 4, 6, 8, 10, 50, 100, 200, 400, 800, 1000, 1400, 2000, 5000, 10_000, 15_000
  };

  private static double[] bounds(SpanMetricsConfig.HistogramConfig h, double unitNanos) {
    if (h.explicit() == null || h.explicit().buckets().isEmpty()) {
      double[] bounds = DEFAULT_BOUNDS_MS.clone();
      if (unitNanos == 1e9) {
        for (int i = 0; i < bounds.length; i++) {
          bounds[i] = bounds[i] / 1000;
        }
      }
      return bounds;
    }
    double[] bounds = new double[h.explicit().buckets().size()];
    for (int i = 0; i < bounds.length; i++) {
      Duration d = h.explicit().buckets().get(i);
      bounds[i] = d.toNanos() / unitNanos;
    }
    return bounds;
  }

  private static byte[][] utf8(java.util.List<String> strings) {
    byte[][] out = new byte[strings.size()][];
    for (int i = 0; i < out.length; i++) {
      out[i] = strings.get(i).getBytes(StandardCharsets.UTF_8);
    }
    return out;
  }

  double[] bounds() {
    return bounds;
  }

  /**
   * Counts every span of {@code batch} (read only; the caller still owns it). False, with nothing
   * counted, when the batch's new resources do not fit beside those held.
   */
  boolean consume(Batch batch, long nowNanos, long nowUnixNanos) {
    this.nowNanos = nowNanos;
    this.nowUnixNanos = nowUnixNanos;
    try {
      if (!resources.room(batch.sliceCount()) && !roomForNewResources(batch)) {
        return false;
      }
      batch.visit(countSpan);
      return true;
    } finally {
      leaveBlocks();
    }
  }

  private void leaveBlocks() {
    blockRequest = null;
    blockResource = -1;
    blockScope = -1;
    state = null;
  }

  /** Counts the batch's resources that are not held yet; true when they fit. */
  private boolean roomForNewResources(Batch batch) {
    newResources = 0;
    newIdentities.reset();
    batch.visitHeaders(findResource);
    leaveBlocks();
    // More new resources than the capacity could never fit, whatever a flush frees: refusing them
    // would refuse their spans for good, so such a batch takes the table past its bound until the
    // next flush.
    return resources.room(newResources) || newResources > resources.capacity();
  }

  private void findResource(BatchItem item) {
    if (item.request() == blockRequest && item.resource() == blockResource) {
      return;
    }
    blockRequest = item.request();
    blockResource = item.resource();
    if (!block.read(item.resourceView())) {
      return;
    }
    KeyBuffer identity = block.identity;
    long hash = identity.hash(0);
    if (resources.contains(identity, 0, hash)) {
      return;
    }
    for (int i = 0; i < newResources; i++) {
      int end = i + 1 < newResources ? newFrom[i + 1] : newIdentities.length;
      if (newHashes[i] == hash
          && Arrays.equals(
              newIdentities.bytes, newFrom[i], end, identity.bytes, 0, identity.length)) {
        return;
      }
    }
    if (newResources == newHashes.length) {
      newHashes = Arrays.copyOf(newHashes, newResources * 2);
      newFrom = Arrays.copyOf(newFrom, newResources * 2);
    }
    newHashes[newResources] = hash;
    newFrom[newResources] = newIdentities.length;
    newIdentities.put(identity.bytes, 0, identity.length);
    newResources++;
  }

  private void countSpan(BatchItem item) {
    if (item.request() != blockRequest || item.resource() != blockResource) {
      enterResource(item);
    }
    if (state == null) {
      return;
    }
    if (item.scope() != blockScope) {
      enterScope(item.scopeView());
      blockScope = item.scope();
    }
    count(item.span());
  }

  private void enterResource(BatchItem item) {
    blockRequest = item.request();
    blockResource = item.resource();
    blockScope = -1;
    state = null;
    if (!block.read(item.resourceView())) {
      return;
    }
    long hash = block.identity.hash(0);
    ResourceState found = resources.find(block.identity, 0, hash);
    if (found == null) {
      found = newResource(hash);
      resources.add(found);
    }
    found.lastSeenNanos = nowNanos;
    state = found;
  }

  private ResourceState newResource(long hash) {
    int limit = config.aggregationCardinalityLimit();
    return new ResourceState(
        block.identity.copy(0),
        hash,
        block.attributes.copy(0),
        new SeriesTable(sumShape, limit, delta),
        histogram ? new SeriesTable(histogramShape, limit, delta) : null,
        config.events().enabled() ? new SeriesTable(sumShape, limit, delta) : null);
  }

  private void enterScope(ScopeView scope) {
    scopePart.reset();
    TextView name = scope.name();
    if (!name.isEmpty() && included(name)) {
      scopePart.put((byte) 1);
      ValueCodec.writeString(name, scopePart);
      ValueCodec.writeString(scope.version(), scopePart);
    } else {
      scopePart.put((byte) 0);
    }
  }

  private boolean included(TextView name) {
    for (byte[] scope : includedScopes) {
      if (name.contentEquals(scope)) {
        return true;
      }
    }
    return false;
  }

  private void count(SpanView span) {
    long start = span.startTimeUnixNano();
    long end = span.endTimeUnixNano();
    double duration = Long.compareUnsigned(end, start) > 0 ? (end - start) / unitNanos : 0;
    boolean scanned = slots.length > 0 && scan.scan(span);
    // A span sampled with a threshold in its tracestate stands for more than itself.
    long adjustedCount = 1;
    boolean extrapolated = false;
    TextView traceState = span.traceState();
    if (!traceState.isEmpty()) {
      double count = SamplingThreshold.adjustedCount(traceState);
      if (count > 0) {
        adjustedCount = sampling.round(count);
        extrapolated = true;
      }
    }

    key.reset();
    writeFixedPart(span, extrapolated, key);
    int fixedEnd = key.length;
    writeDimensions(layout.common, span, scanned, false, key);
    int prefixEnd = key.length;
    writeDimensions(layout.calls, span, scanned, false, key);
    long callsHash = key.hash(0);
    Series calls = state.calls.series(key, 0, callsHash, nowUnixNanos, nowNanos);
    calls.add(adjustedCount);
    if (exemplars && !calls.overflow()) {
      exemplar(calls, span, duration);
    }

    if (histogram) {
      long durationHash = callsHash;
      if (layout.duration.length > 0 || layout.calls.length > 0) {
        key.length = prefixEnd;
        writeDimensions(layout.duration, span, scanned, false, key);
        durationHash = key.hash(0);
      }
      Series series = state.duration.series(key, 0, durationHash, nowUnixNanos, nowNanos);
      if (bounds != null) {
        series.observe(duration, bucket(bounds, duration), adjustedCount);
      } else {
        series.observeExponential(duration, adjustedCount);
      }
      if (exemplars && !series.overflow()) {
        exemplar(series, span, duration);
      }
    }

    if (state.events != null) {
      span.events(eventView);
      while (eventView.next()) {
        eventKey.reset();
        eventKey.put(key.bytes, 0, fixedEnd);
        writeDimensions(layout.common, span, scanned, true, eventKey);
        writeDimensions(layout.events, span, scanned, true, eventKey);
        Series series = state.events.series(eventKey, 0, eventKey.hash(0), nowUnixNanos, nowNanos);
        series.add(adjustedCount);
        if (exemplars && !series.overflow()) {
          exemplar(series, span, duration);
        }
      }
    }
  }

  /** The default dimensions, the scope and the sampling method, as {@link KeyLayout} has them. */
  private void writeFixedPart(SpanView span, boolean extrapolated, KeyBuffer out) {
    if (layout.serviceName) {
      block.writeServiceName(out);
    }
    if (layout.spanName) {
      ValueCodec.writeString(span.name(), out);
    }
    if (layout.spanKind) {
      int kind = span.kind();
      out.put((byte) (kind >= 0 && kind < KeyLayout.KINDS.length - 1 ? kind : 6));
    }
    if (layout.statusCode) {
      int status = span.statusCode();
      out.put((byte) (status >= 0 && status < KeyLayout.STATUSES.length - 1 ? status : 3));
    }
    out.put(scopePart.bytes, 0, scopePart.length);
    if (layout.samplingMethod) {
      out.put(extrapolated ? KeyLayout.EXTRAPOLATED : KeyLayout.COUNTED);
    }
  }

  /**
   * Writes each dimension's value: the span's attribute, else (for events) the event's, else the
   * resource's, else the default, else {@link ValueCodec.Tag#ABSENT}.
   */
  private void writeDimensions(
      KeyLayout.Use[] uses, SpanView span, boolean scanned, boolean event, KeyBuffer out) {
    for (KeyLayout.Use use : uses) {
      int name = use.name();
      if (spanValue(name, span, scanned, out)) {
        continue;
      }
      if (event && eventView.attributes(eventCursor).find(layout.utf8Names[name])) {
        codec.write(eventCursor.value(), out);
        continue;
      }
      if (block.writeDimension(name, out)) {
        continue;
      }
      if (use.defaultValue() != null) {
        out.put(use.defaultValue(), 0, use.defaultValue().length);
      } else {
        out.put(ValueCodec.Tag.ABSENT);
      }
    }
  }

  /** Writes the span's attribute {@code name}; false when it has none. */
  private boolean spanValue(int name, SpanView span, boolean scanned, KeyBuffer out) {
    if (!scanned) {
      // The scan could not read this span (it holds a group field): the cursor can.
      if (!span.attributes(cursor).find(layout.utf8Names[name])) {
        return false;
      }
      codec.write(cursor.value(), out);
      return true;
    }
    int slot = slots[name];
    if (!scan.found(slot)) {
      return false;
    }
    switch (scan.kind(slot)) {
      case SpanFieldScan.STRING -> {
        int length = scan.textTo() - scan.textFrom();
        out.put(ValueCodec.Tag.STRING);
        out.putLength(length);
        out.put(scan.bytes(), scan.textFrom(), length);
      }
      case SpanFieldScan.NIL -> out.put(ValueCodec.Tag.EMPTY);
      default -> codec.write(scan.value(slot), out);
    }
    return true;
  }

  private void exemplar(Series series, SpanView span, double value) {
    long high = span.traceIdHigh();
    long low = span.traceIdLow();
    if ((high | low) != 0) {
      series.exemplar(high, low, span.spanIdLong(), value);
    }
  }

  /** The explicit bucket of {@code value}: the first whose upper bound is at least it. */
  static int bucket(double[] bounds, double value) {
    int low = 0;
    int high = bounds.length;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (bounds[mid] < value) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low;
  }

  /**
   * A flush was handed on (or failed for good) at {@code unixNanos}: a delta metric starts its next
   * interval empty, a cumulative sum has shown its first 0, exemplars are dropped, and what expired
   * or was evicted is forgotten.
   */
  void flushed(long nowNanos, long unixNanos) {
    for (int i = 0; i < resources.size(); i++) {
      ResourceState resource = resources.get(i);
      flushed(resource.calls, nowNanos, unixNanos);
      flushed(resource.duration, nowNanos, unixNanos);
      flushed(resource.events, nowNanos, unixNanos);
    }
    resources.removeIf(
        r ->
            r.evicted
                || r.empty()
                || (!delta
                    && metricsExpirationNanos > 0
                    && nowNanos - r.lastSeenNanos >= metricsExpirationNanos));
  }

  private void flushed(SeriesTable table, long nowNanos, long unixNanos) {
    if (table == null) {
      return;
    }
    if (delta) {
      table.removeIf(s -> !s.touched);
      for (int i = 0; i < table.size(); i++) {
        Series series = table.get(i);
        series.clearValues();
        series.exemplarCount = 0;
        series.startUnixNanos = unixNanos;
        series.emitted = true;
      }
      table.startInterval();
      return;
    }
    for (int i = 0; i < table.size(); i++) {
      Series series = table.get(i);
      series.emitted = true;
      series.exemplarCount = 0;
    }
    if (seriesExpirationNanos > 0) {
      table.removeIf(s -> nowNanos - s.lastSeenNanos >= seriesExpirationNanos);
    }
  }

  boolean delta() {
    return delta;
  }

  boolean histogram() {
    return histogram;
  }
}
