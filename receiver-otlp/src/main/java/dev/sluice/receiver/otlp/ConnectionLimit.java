package dev.sluice.receiver.otlp;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bound on one transport's open connections ({@code max_connections}). A connection accepted
 * over it is closed at once, before anything is read from it: the client sees its connection closed
 * by the server (gRPC: UNAVAILABLE, which clients retry with backoff; HTTP: an I/O error on the
 * connection), and the connections already open keep being served. Thread-safe.
 */
final class ConnectionLimit {
  private final int maxConnections;
  private final AtomicInteger open = new AtomicInteger();
  private final MetricRegistry.Counter refused;

  ConnectionLimit(int maxConnections, ComponentSettings settings, String transport) {
    this.maxConnections = maxConnections;
    MetricRegistry metrics = settings.metrics();
    String receiver = settings.id().toString();
    metrics.gauge(
        "sluice_receiver_open_connections",
        "Connections open on the receiver",
        open::get,
        "receiver",
        receiver,
        "transport",
        transport);
    this.refused =
        metrics.counter(
            "sluice_receiver_refused_connections",
            "Connections closed at accept because max_connections were open",
            "receiver",
            receiver,
            "transport",
            transport);
  }

  /** Takes a place for a new connection; false (and counted) when all are taken. */
  boolean tryOpen() {
    if (open.incrementAndGet() > maxConnections) {
      open.decrementAndGet();
      refused.increment();
      return false;
    }
    return true;
  }

  /** Gives back the place of a connection that {@link #tryOpen} admitted, once it is closed. */
  void closed() {
    open.decrementAndGet();
  }

  int open() {
    return open.get();
  }
}
