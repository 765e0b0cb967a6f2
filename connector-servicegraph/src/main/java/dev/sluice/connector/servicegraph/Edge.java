package dev.sluice.connector.servicegraph;

import java.util.Arrays;

/**
 * One request between two services, as far as its spans have been seen: keyed by the trace ID and
 * the client span's ID (a client span's own ID, a server span's parent ID), it is complete once
 * both the client and the server service are known. An empty service is not known, as in the
 * Collector. Held in the {@link EdgeStore} while it waits for its other side; reused once it is
 * done.
 */
final class Edge {
  long traceIdHigh;
  long traceIdLow;
  long spanId;

  /** When it expires, on the scheduler's clock. */
  long expiresNanos;

  String client = "";
  String server = "";
  String connectionType = ConnectionType.UNSET;
  boolean failed;
  double clientLatencySeconds;
  double serverLatencySeconds;

  /** Dimension values by configured dimension, null when the side did not have it. */
  final String[] clientDimensions;

  final String[] serverDimensions;

  /** Peer attribute values by configured peer attribute, null when not seen. */
  final String[] peers;

  /** The {@code virtual_node} attribute's value: empty, {@code client} or {@code server}. */
  String virtualNode = "";

  // The store's links: its hash slot is found again by key; the list is oldest first.
  Edge older;
  Edge newer;

  Edge(int dimensions, int peerAttributes) {
    this.clientDimensions = new String[dimensions];
    this.serverDimensions = new String[dimensions];
    this.peers = new String[peerAttributes];
  }

  /** The connection types, as the Collector writes them in {@code connection_type}. */
  static final class ConnectionType {
    static final String UNSET = "";
    static final String MESSAGING_SYSTEM = "messaging_system";
    static final String DATABASE = "database";
    static final String VIRTUAL_NODE = "virtual_node";

    private ConnectionType() {}
  }

  boolean complete() {
    return !client.isEmpty() && !server.isEmpty();
  }

  /** Makes it a new edge of that key, expiring at {@code expiresNanos}. */
  void reset(long traceIdHigh, long traceIdLow, long spanId, long expiresNanos) {
    this.traceIdHigh = traceIdHigh;
    this.traceIdLow = traceIdLow;
    this.spanId = spanId;
    this.expiresNanos = expiresNanos;
    client = "";
    server = "";
    connectionType = ConnectionType.UNSET;
    failed = false;
    clientLatencySeconds = 0;
    serverLatencySeconds = 0;
    Arrays.fill(clientDimensions, null);
    Arrays.fill(serverDimensions, null);
    Arrays.fill(peers, null);
    virtualNode = "";
    older = null;
    newer = null;
  }
}
