package dev.sluice.service;

import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The collector-wide bound on data held in pipelines: the bytes of the requests that batches still
 * refer to (each request counted once, however many pipelines and exporters share it), and their
 * units (spans, data points, log records).
 *
 * <p>A request is admitted whole or refused at once; it is released when the last slice that refers
 * to it is cleared, after every exporter has sent or dropped it.
 */
public final class MemoryBudget implements OtlpIndex.Releaser {
  /**
   * {@link #hasRoom()} keeps this fraction of the byte bound (1/16) in reserve: a request whose
   * size is not known yet is refused at its headers once less than that is free, since it would
   * most likely be refused after it had been read, and read bodies are what an overload cannot
   * afford. With the default bound (a third of a 256 MiB heap) the reserve is about 5 MiB, a dozen
   * requests of 1000 spans.
   */
  public static final int RESERVE_DIVISOR = 16;

  private final long maxBytes;
  private final long maxUnits;
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong units = new AtomicLong();
  // Set while a request larger than the bound waits to be admitted alone: nothing else is admitted
  // meanwhile, so that what is held drains.
  private volatile boolean clearing;

  public MemoryBudget(long maxBytes, long maxUnits) {
    if (maxBytes <= 0 || maxUnits <= 0) {
      throw new IllegalArgumentException("limits must be positive: " + maxBytes + ", " + maxUnits);
    }
    this.maxBytes = maxBytes;
    this.maxUnits = maxUnits;
  }

  /** A default for a JVM: a third of the maximum heap, which leaves room for copies in flight. */
  public static long defaultMaxBytes() {
    return Runtime.getRuntime().maxMemory() / 3;
  }

  /**
   * Admits the request if both bounds have room for it; the request is then held for this budget
   * ({@link OtlpIndex#hold}) and the caller must {@link OtlpIndex#releaseHold()} once it has made
   * its batches.
   */
  public boolean tryAdmit(OtlpIndex request) {
    return tryAdmit(request, this);
  }

  /**
   * {@link #tryAdmit(OtlpIndex)}, with {@code releaser} told when the request is released instead
   * of the budget; it must pass both calls on to the budget ({@link #released}, {@link
   * #editBytesChanged}).
   */
  public boolean tryAdmit(OtlpIndex request, OtlpIndex.Releaser releaser) {
    if (clearing) {
      return false;
    }
    long requestBytes = request.retainedBytes();
    long requestUnits = request.unitCount();
    if (bytes.addAndGet(requestBytes) > maxBytes) {
      bytes.addAndGet(-requestBytes);
      return false;
    }
    if (units.addAndGet(requestUnits) > maxUnits) {
      units.addAndGet(-requestUnits);
      bytes.addAndGet(-requestBytes);
      return false;
    }
    request.hold(releaser);
    return true;
  }

  /**
   * Whether a request of unknown size should be read at all: false once fewer than {@code maxBytes
   * / 16} bytes are free or every unit is taken. {@link #tryAdmit} still decides for the request
   * once it is read, since the budget can fill while a body is being received.
   */
  public boolean hasRoom() {
    return !clearing
        && bytes.get() < maxBytes - maxBytes / RESERVE_DIVISOR
        && units.get() < maxUnits;
  }

  /** Whether {@code request} is larger than either bound: {@link #tryAdmit} never takes it. */
  public boolean exceedsBound(OtlpIndex request) {
    return request.retainedBytes() > maxBytes || request.unitCount() > maxUnits;
  }

  /**
   * Admits a request larger than the bound ({@link #exceedsBound}) once nothing else is held, as
   * {@link #tryAdmit} would admit another; false while something still is. From the first call on,
   * nothing else is admitted until this one is, so what is held drains: a request logged under a
   * larger bound is replayed after all, at the cost of refusing others for that long. The request's
   * bytes are in memory already; holding them alone passes the bound by their excess only.
   */
  public boolean tryAdmitAlone(OtlpIndex request, OtlpIndex.Releaser releaser) {
    clearing = true;
    if (bytes.get() != 0 || units.get() != 0) {
      return false;
    }
    bytes.addAndGet(request.retainedBytes());
    units.addAndGet(request.unitCount());
    request.hold(releaser);
    clearing = false;
    return true;
  }

  /** Gives up a {@link #tryAdmitAlone} that will not be tried again: others are admitted again. */
  public void stopClearing() {
    clearing = false;
  }

  @Override
  public void released(OtlpIndex request) {
    bytes.addAndGet(-request.retainedBytes());
    units.addAndGet(-request.unitCount());
  }

  /**
   * Replacement bytes that processors wrote for a held request count like its own bytes. They are
   * not refused: the request is already admitted, and new requests meet the bound instead.
   */
  @Override
  public void editBytesChanged(OtlpIndex request, long deltaBytes) {
    bytes.addAndGet(deltaBytes);
  }

  public long usedBytes() {
    return bytes.get();
  }

  public long usedUnits() {
    return units.get();
  }

  public long maxBytes() {
    return maxBytes;
  }

  public long maxUnits() {
    return maxUnits;
  }

  /** Publishes the budget's use and capacity as gauges. */
  public void register(MetricRegistry metrics) {
    metrics.gauge(
        "sluice_pipeline_memory_used_bytes",
        "Bytes of requests held in pipelines",
        this::usedBytes);
    metrics.gauge(
        "sluice_pipeline_memory_limit_bytes",
        "The bound on bytes of requests held in pipelines",
        () -> maxBytes);
    metrics.gauge(
        "sluice_pipeline_items",
        "Spans, data points and log records held in pipelines",
        this::usedUnits);
  }
}
