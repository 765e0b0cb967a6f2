package dev.sluice.exporter.loadbalancing;

import dev.sluice.component.Exporter;

/**
 * One backend of the pool: its name as resolved (what the ring hashes), the OTLP exporter that
 * sends to it, and what the load balancer learned about it. Once removed it takes no new sends, and
 * tells its {@link Membership} when the last send in flight to it has ended, so that its exporter
 * can be stopped without cutting anything.
 */
final class Backend {
  final String name;
  final Exporter exporter;

  /** Set once the resolver no longer lists it: what is sent to it from then on goes elsewhere. */
  private volatile boolean removed;

  /** Until when (scheduler nanos) it is left out after failing past its retries; 0 if never. */
  private volatile long downUntilNanos;

  private volatile boolean everDown;

  /** Sends to its exporter that have begun and not ended; guarded by this. */
  private int sendsInFlight;

  /** Told once, when it is removed and no send is in flight any more; guarded by this. */
  private Runnable whenIdle;

  Backend(String name, Exporter exporter) {
    this.name = name;
    this.exporter = exporter;
  }

  boolean removed() {
    return removed;
  }

  /**
   * Begins a send to its exporter; false once it is removed, when nothing new goes to it. Every
   * send begun must be {@linkplain #endSend() ended}.
   */
  synchronized boolean beginSend() {
    if (removed) {
      return false;
    }
    sendsInFlight++;
    return true;
  }

  /** Ends a send begun with {@link #beginSend()}. */
  void endSend() {
    Runnable idle;
    synchronized (this) {
      sendsInFlight--;
      idle = takeIdleHook();
    }
    if (idle != null) {
      idle.run();
    }
  }

  /**
   * Marks it removed: no new send begins. {@code whenIdle} runs once no send to it is in flight:
   * now, on this thread, if none is, or else on the thread that ends the last one. It must not
   * block.
   */
  void markRemoved(Runnable whenIdle) {
    Runnable idle;
    synchronized (this) {
      removed = true;
      this.whenIdle = whenIdle;
      idle = takeIdleHook();
    }
    if (idle != null) {
      idle.run();
    }
  }

  void markRemoved() {
    markRemoved(() -> {});
  }

  private Runnable takeIdleHook() {
    if (!removed || sendsInFlight > 0 || whenIdle == null) {
      return null;
    }
    Runnable idle = whenIdle;
    whenIdle = null;
    return idle;
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
