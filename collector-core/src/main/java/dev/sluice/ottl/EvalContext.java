package dev.sluice.ottl;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.internal.MessageRewriter;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.RawMessages;
import dev.sluice.pdata.view.DataPointView;
import dev.sluice.pdata.view.LogRecordView;
import dev.sluice.pdata.view.MetricView;
import dev.sluice.pdata.view.ResourceView;
import dev.sluice.pdata.view.ScopeView;
import dev.sluice.pdata.view.SpanEventView;
import dev.sluice.pdata.view.SpanView;

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
  // Changes whenever span may point at other bytes, so that a SpanScan knows to walk it again.
  long spanStamp;
  SpanEventView spanEvent;
  // The event's place among its span's events, when statements may edit it (else -1).
  int spanEventIndex = -1;
  LogRecordView logRecord;
  MetricView metric;
  DataPointView dataPoint;

  // Editing: the statements' cache (this item's, or one shared by groups), and where headers are
  // read.
  private final OttlCache ownCache = new OttlCache();
  private OttlCache cache = ownCache;
  private final RawMessages headers = new RawMessages();
  private final ProtoWriter metricBytes = new ProtoWriter(CACHE_INITIAL_BYTES);
  private final SpanEventSplice events = new SpanEventSplice();
  private int loadedOffset;
  private int loadedLength;

  private static final int CACHE_INITIAL_BYTES = 256;

  /** A cache that once held much more than usual does not keep it between items. */
  private static final int MAX_RETAINED_CACHE_BYTES = 64 * 1024;

  public EvalContext() {}

  /** The resource and scope of the item's block. */
  public EvalContext block(ResourceView resource, ScopeView scope) {
    this.item = null;
    this.resource = resource;
    this.scope = scope;
    spanStamp++;
    return this;
  }

  /**
   * The block of the item a {@link dev.sluice.pdata.Batch#visit} is at: its resource and scope
   * views are read from the item when a path first needs them, so that conditions on the item alone
   * do not pay for them.
   */
  public EvalContext block(BatchItem item) {
    this.item = item;
    this.resource = null;
    this.scope = null;
    this.spanEventIndex = -1;
    spanStamp++;
    emptyCache();
    return this;
  }

  private void emptyCache() {
    ownCache.clear();
  }

  /**
   * The cache the statements read and write from now on: {@code shared} (which items and groups
   * then share, and which the caller empties), or with null this context's own, empty for each
   * item.
   */
  public EvalContext sharedCache(OttlCache shared) {
    this.cache = shared == null ? ownCache : shared;
    return this;
  }

  /** The current bytes of {@code host}: the array, with {@link #loadedOffset} and length. */
  byte[] load(Host host) {
    switch (host) {
      case METRIC -> {
        BatchItem at = editable();
        if (at.isMetric()) {
          loadedOffset = at.offset();
          loadedLength = at.length();
          return at.array();
        }
        // At a data point: the metric as the batch writes it; its points are ignored when stored.
        metricBytes.release(MAX_RETAINED_CACHE_BYTES);
        metricBytes.reset();
        at.metric().writeTo(metricBytes);
        loadedOffset = 0;
        loadedLength = metricBytes.size();
        return metricBytes.array();
      }
      case ITEM -> {
        BatchItem at = editable();
        loadedOffset = at.offset();
        loadedLength = at.length();
        return at.array();
      }
      case SPANEVENT -> {
        BatchItem at = editable();
        long found = events.find(at.array(), at.offset(), at.length(), editableEventIndex());
        loadedOffset = MessageRewriter.high(found);
        loadedLength = MessageRewriter.low(found);
        return at.array();
      }
      case RESOURCE, SCOPE -> {
        BatchItem at = editable();
        RawMessages raw = host == Host.RESOURCE ? headers.resourceOf(at) : headers.scopeOf(at);
        loadedOffset = raw.offset();
        loadedLength = raw.length();
        byte[] array = raw.array();
        headers.clear();
        return array;
      }
      default -> {
        loadedOffset = 0;
        loadedLength = cache.entries().size();
        return cache.entries().array();
      }
    }
  }

  int loadedOffset() {
    return loadedOffset;
  }

  int loadedLength() {
    return loadedLength;
  }

  /**
   * Writes {@code message[0, length)} as the new bytes of {@code host}, and points the views of it
   * at them, so that later statements see the change.
   */
  void store(Host host, byte[] message, int length) {
    switch (host) {
      case ITEM -> {
        item.replace(message, 0, length);
        if (span != null) {
          span = item.span();
          spanStamp++;
          repointSpanEvent();
        } else if (logRecord != null) {
          logRecord = item.logRecord();
        } else if (dataPoint != null) {
          dataPoint = item.dataPoint();
        }
      }
      case SPANEVENT -> {
        ProtoWriter rewritten =
            events.replace(
                item.array(), item.offset(), item.length(), spanEventIndex, message, length);
        item.replace(rewritten.array(), 0, rewritten.size());
        span = item.span();
        spanStamp++;
        repointSpanEvent();
      }
      case METRIC -> {
        item.replaceMetric(message, 0, length);
        metric = item.metric();
        if (dataPoint != null) {
          dataPoint = item.dataPoint();
        }
      }
      case RESOURCE -> {
        item.replaceResource(message, 0, length);
        resource = null;
      }
      case SCOPE -> {
        item.replaceScope(message, 0, length);
        scope = null;
      }
      case CACHE -> cache.store(message, length);
    }
  }

  /**
   * After its span was written anew: the event cursor walks the new bytes to the same event, so
   * that later statements read the change and the visit goes on with the next event.
   */
  private void repointSpanEvent() {
    if (spanEventIndex < 0 || spanEvent == null) {
      return;
    }
    span.events(spanEvent);
    for (int i = 0; i <= spanEventIndex; i++) {
      spanEvent.next();
    }
  }

  private int editableEventIndex() {
    if (spanEventIndex < 0) {
      throw new IllegalStateException(
          "span event statements edit an event of spanEvent(at, index)");
    }
    return spanEventIndex;
  }

  /** The cache's entries: {@code cache.array()[0, cache.size())}. */
  ProtoWriter cache() {
    return cache.entries();
  }

  /** The signal of the item being edited, and with it the field its attributes are in. */
  BatchItem editable() {
    if (item == null) {
      throw new IllegalStateException("statements edit an item of a Batch.visit: use block(item)");
    }
    return item;
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
    spanStamp++;
    return this;
  }

  public EvalContext spanEvent(SpanEventView spanEvent) {
    this.spanEvent = spanEvent;
    this.spanEventIndex = -1;
    return this;
  }

  /**
   * The event {@code events} is at, the {@code index}-th of the span set with {@link #span}, for
   * statements that may edit it: an edit writes the span anew and moves {@code events} to the same
   * event in the new bytes, so the caller's walk goes on with the next one. The cache starts empty
   * for each event, as the Collector's span event context has its own.
   */
  public EvalContext spanEvent(SpanEventView events, int index) {
    this.spanEvent = events;
    this.spanEventIndex = index;
    emptyCache();
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
    ownCache.clear();
    cache = ownCache;
    resource = null;
    scope = null;
    span = null;
    spanStamp++;
    spanEvent = null;
    spanEventIndex = -1;
    logRecord = null;
    metric = null;
    dataPoint = null;
  }
}
