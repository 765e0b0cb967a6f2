package dev.sluice.connector.servicegraph;

import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.SpanFieldScan;
import dev.sluice.pdata.view.SpanView;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Pairs spans into edges and counts complete edges into series, as the Collector's connector does.
 * A CLIENT span (PRODUCER: a messaging edge) opens or fills the edge keyed by its trace ID and its
 * own span ID; a SERVER span (CONSUMER: messaging) the edge keyed by its trace ID and its parent
 * span ID. A client span with a database name attribute makes a database edge, complete at once,
 * with the database as its server. Other kinds, and spans of resources without {@code
 * service.name}, are not read further.
 *
 * <p>An edge complete when its span arrives is counted at once; one that waits is held in the
 * {@link EdgeStore} until its other side comes or its ttl passes. When the store is full, a span
 * that would open one more edge takes the oldest one's place if that one has expired, and is
 * dropped otherwise (counted). An expired edge is counted as such; with peer attributes configured,
 * one without a server gets a virtual server (its peer attribute, or {@code unknown}) and a root
 * server span's edge the client {@code user}, and those are counted as requests.
 *
 * <p>Spans are read through their views: kind, IDs, status and times from the {@link SpanView}, the
 * attributes wanted in one {@link SpanFieldScan} walk. Not thread-safe: the connector calls it
 * under its lock.
 */
final class EdgeAggregator {
  private static final byte[] SERVICE_NAME = "service.name".getBytes(StandardCharsets.UTF_8);
  private static final String USER = "user";
  private static final String UNKNOWN = "unknown";

  private final EdgeStore store;
  final SeriesTable series;
  private final long ttlNanos;
  private final boolean virtualNodes;
  private final boolean virtualNodeLabel;

  // Attribute names: dimensions, then peer attributes, then database name attributes.
  private final byte[][] dimensions;
  private final byte[][] peers;
  private final byte[][] databaseNames;
  private final int[] dimensionSlots;
  private final int[] peerSlots;
  private final int[] databaseSlots;

  private final MetricRegistry.Counter droppedSpans;
  private final MetricRegistry.Counter totalEdges;
  private final MetricRegistry.Counter expiredEdges;

  // Reused span after span.
  private final SpanFieldScan scan = new SpanFieldScan();
  private final AttributeCursor cursor = new AttributeCursor();
  private final ItemVisitor visitSpan = this::visitSpan;
  private SpanView span;
  private boolean scanned;

  // The resource block being read: its service name (null: none, its spans are skipped) and the
  // values it gives the dimensions and database names (null where it has none).
  private OtlpIndex blockRequest;
  private int blockResource = -1;
  private String serviceName;
  private final String[] resourceDimensions;
  private final String[] resourceDatabaseNames;

  private long nowNanos;

  EdgeAggregator(
      ServiceGraphConfig config,
      MetricRegistry.Counter droppedSpans,
      MetricRegistry.Counter totalEdges,
      MetricRegistry.Counter expiredEdges) {
    this.dimensions = utf8(config.dimensions());
    this.peers = utf8(config.virtualNodePeerAttributes());
    this.databaseNames = utf8(config.effectiveDatabaseNameAttributes());
    this.dimensionSlots = slots(dimensions);
    this.peerSlots = slots(peers);
    this.databaseSlots = slots(databaseNames);
    this.resourceDimensions = new String[dimensions.length];
    this.resourceDatabaseNames = new String[databaseNames.length];
    this.store = new EdgeStore(config.store().maxItems(), dimensions.length, peers.length);
    this.series =
        new SeriesTable(
            config.maxSeries(), config.boundsSeconds(), config.exponentialHistogramMaxSize());
    this.ttlNanos = config.store().ttl().toNanos();
    this.virtualNodes = peers.length > 0;
    this.virtualNodeLabel = config.virtualNodeExtraLabel();
    this.droppedSpans = droppedSpans;
    this.totalEdges = totalEdges;
    this.expiredEdges = expiredEdges;
  }

  private static byte[][] utf8(List<String> names) {
    byte[][] out = new byte[names.size()][];
    for (int i = 0; i < out.length; i++) {
      out[i] = names.get(i).getBytes(StandardCharsets.UTF_8);
    }
    return out;
  }

  private int[] slots(byte[][] names) {
    int[] slots = new int[names.length];
    for (int i = 0; i < names.length; i++) {
      slots[i] = scan.key(names[i]);
    }
    return slots;
  }

  /** Pairs every span of {@code batch} (read only; the caller still owns it). */
  void consume(Batch batch, long nowNanos) {
    this.nowNanos = nowNanos;
    try {
      batch.visit(visitSpan);
    } finally {
      blockRequest = null;
      blockResource = -1;
      span = null;
    }
  }

  /** Takes out the edges whose ttl has passed, oldest first. */
  void expire(long nowNanos) {
    this.nowNanos = nowNanos;
    Edge oldest;
    while ((oldest = store.oldest()) != null && nowNanos > oldest.expiresNanos) {
      expired(oldest);
      store.remove(oldest);
    }
  }

  int openEdges() {
    return store.size();
  }

  private void visitSpan(BatchItem item) {
    if (item.request() != blockRequest || item.resource() != blockResource) {
      enterResource(item);
    }
    if (serviceName == null) {
      return;
    }
    SpanView view = item.span();
    switch (view.kind()) {
      case SpanView.KIND_PRODUCER -> client(view, Edge.ConnectionType.MESSAGING_SYSTEM);
      case SpanView.KIND_CLIENT -> client(view, Edge.ConnectionType.UNSET);
      case SpanView.KIND_CONSUMER -> server(view, Edge.ConnectionType.MESSAGING_SYSTEM);
      case SpanView.KIND_SERVER -> server(view, Edge.ConnectionType.UNSET);
      default -> {
        // Not a side of an edge.
      }
    }
  }

  private void enterResource(BatchItem item) {
    blockRequest = item.request();
    blockResource = item.resource();
    serviceName = null;
    item.resourceView().attributes(cursor);
    if (!cursor.find(SERVICE_NAME)) {
      return;
    }
    serviceName = AttributeText.of(cursor.value());
    for (int i = 0; i < dimensions.length; i++) {
      item.resourceView().attributes(cursor);
      resourceDimensions[i] = cursor.find(dimensions[i]) ? AttributeText.of(cursor.value()) : null;
    }
    for (int i = 0; i < databaseNames.length; i++) {
      item.resourceView().attributes(cursor);
      resourceDatabaseNames[i] =
          cursor.find(databaseNames[i]) ? AttributeText.of(cursor.value()) : null;
    }
  }

  private void client(SpanView view, String connectionType) {
    read(view);
    Edge edge = store.find(view.traceIdHigh(), view.traceIdLow(), view.spanIdLong());
    boolean isNew = edge == null;
    if (isNew) {
      edge =
          store.take(view.traceIdHigh(), view.traceIdLow(), view.spanIdLong(), nowNanos + ttlNanos);
    }
    double latency = latencySeconds(view);
    edge.connectionType = connectionType;
    edge.client = serviceName;
    edge.clientLatencySeconds = latency;
    edge.failed |= view.statusCode() == SpanView.STATUS_ERROR;
    dimensions(edge.clientDimensions);
    if (virtualNodes) {
      for (int i = 0; i < peers.length; i++) {
        String peer = spanText(peerSlots[i], peers[i]);
        if (peer != null) {
          edge.peers[i] = peer;
          break;
        }
      }
    }
    // A database call has one span: the client's tells the database and stands for both sides.
    String database = databaseName();
    if (database != null) {
      edge.connectionType = Edge.ConnectionType.DATABASE;
      edge.server = database;
      edge.serverLatencySeconds = latency;
    }
    settle(edge, isNew);
  }

  private void server(SpanView view, String connectionType) {
    if (dimensions.length > 0) {
      read(view);
    }
    Edge edge = store.find(view.traceIdHigh(), view.traceIdLow(), view.parentSpanIdLong());
    boolean isNew = edge == null;
    if (isNew) {
      edge =
          store.take(
              view.traceIdHigh(), view.traceIdLow(), view.parentSpanIdLong(), nowNanos + ttlNanos);
    }
    edge.connectionType = connectionType;
    edge.server = serviceName;
    edge.serverLatencySeconds = latencySeconds(view);
    edge.failed |= view.statusCode() == SpanView.STATUS_ERROR;
    dimensions(edge.serverDimensions);
    settle(edge, isNew);
  }

  /** Counts a complete edge, holds a new incomplete one if there is room. */
  private void settle(Edge edge, boolean isNew) {
    if (!isNew) {
      if (edge.complete()) {
        count(edge);
        store.remove(edge);
      }
      return;
    }
    if (edge.complete()) {
      totalEdges.increment();
      count(edge);
      store.release(edge);
      return;
    }
    if (store.full() && !evictOldestIfExpired()) {
      droppedSpans.increment();
      store.release(edge);
      return;
    }
    store.add(edge);
    totalEdges.increment();
  }

  private boolean evictOldestIfExpired() {
    Edge oldest = store.oldest();
    if (oldest == null || nowNanos <= oldest.expiresNanos) {
      return false;
    }
    expired(oldest);
    store.remove(oldest);
    return true;
  }

  private void expired(Edge edge) {
    expiredEdges.increment();
    if (!virtualNodes) {
      return;
    }
    edge.connectionType = Edge.ConnectionType.VIRTUAL_NODE;
    if (edge.client.isEmpty() && edge.spanId == 0) {
      // A root server span: its caller is outside the traced system.
      edge.client = USER;
      if (virtualNodeLabel) {
        edge.virtualNode = "client";
      }
      count(edge);
    }
    if (edge.server.isEmpty()) {
      edge.server = peerHost(edge);
      if (virtualNodeLabel) {
        edge.virtualNode = "server";
      }
      count(edge);
    }
  }

  private String peerHost(Edge edge) {
    for (String peer : edge.peers) {
      if (peer != null) {
        return peer;
      }
    }
    return UNKNOWN;
  }

  private void count(Edge edge) {
    series.record(edge, virtualNodeLabel, nowNanos);
  }

  // Reading the span's attributes.

  private void read(SpanView view) {
    span = view;
    scanned = scan.scan(view);
  }

  private void dimensions(String[] out) {
    for (int i = 0; i < dimensions.length; i++) {
      // The resource's value first, then the span's, as the Collector looks them up.
      String value = resourceDimensions[i];
      if (value == null) {
        value = spanText(dimensionSlots[i], dimensions[i]);
      }
      if (value != null) {
        out[i] = value;
      }
    }
  }

  /** The first database name attribute found, each in the resource and then the span. */
  private String databaseName() {
    for (int i = 0; i < databaseNames.length; i++) {
      if (resourceDatabaseNames[i] != null) {
        return resourceDatabaseNames[i];
      }
      String value = spanText(databaseSlots[i], databaseNames[i]);
      if (value != null) {
        return value;
      }
    }
    return null;
  }

  /** The span's attribute as text; null when it has none. */
  private String spanText(int slot, byte[] name) {
    if (!scanned) {
      // The scan could not read this span (it holds a group field): the cursor can.
      return span.attributes(cursor).find(name) ? AttributeText.of(cursor.value()) : null;
    }
    if (!scan.found(slot)) {
      return null;
    }
    if (scan.kind(slot) == SpanFieldScan.STRING) {
      return new String(
          scan.bytes(), scan.textFrom(), scan.textTo() - scan.textFrom(), StandardCharsets.UTF_8);
    }
    return AttributeText.of(scan.value(slot));
  }

  /** The span's duration in seconds; 0 when it ends before it starts. */
  private static double latencySeconds(SpanView view) {
    long start = view.startTimeUnixNano();
    long end = view.endTimeUnixNano();
    return Long.compareUnsigned(end, start) > 0 ? (end - start) / 1e9 : 0;
  }
}
