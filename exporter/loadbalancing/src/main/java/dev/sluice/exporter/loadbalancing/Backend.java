package dev.sluice.exporter.loadbalancing;

import dev.sluice.component.Exporter;

/**
 * One backend of the pool: its name as resolved (what the ring hashes), the OTLP exporter that
 * sends to it, and what the load balancer learned about it.
 */
final class Backend {
  final String name;
  final Exporter exporter;

  /** Set once the resolver no longer lists it: what is sent to it from then on goes elsewhere. */
  private volatile boolean removed;

  /** Until when (scheduler nanos) it is left out after failing past its retries; 0 if never. */
  private volatile long downUntilNanos;

  private volatile boolean everDown;

  Backend(String name, Exporter exporter) {
    this.name = name;
    this.exporter = exporter;
  }

  boolean removed() {
    return removed;
  }

  void markRemoved() {
    removed = true;
  }

  /** Whether it is left out at {@code nowNanos}: removed, or down after failing. */
  boolean leftOut(long nowNanos) {
    return removed || (everDown && downUntilNanos - nowNanos > 0);
  }

  void markDown(long untilNanos) {
    downUntilNanos = untilNanos;
    everDown = true;
  }

  @Override
  public String toString() {
    return name;
  }
}
