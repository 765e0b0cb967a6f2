package dev.sluice.service;

import dev.sluice.pdata.Batch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One batch handed to several exporters: each calls {@link #release()} once it has sent or dropped
 * the batch, and the last one clears it, which frees the requests it refers to.
 *
 * <p>A durable pipeline's end ({@link DurableFanout}) gives each exporter its own handle on one
 * count, and learns which exporter lets go ({@link Owners}); other pipelines share one handle and
 * pay nothing for that.
 */
public final class SharedBatch {
  /** Told as the exporters let go of a batch shared through {@link DurableFanout}. */
  interface Owners {
    /** Exporter {@code owner} of the fan-out let go of {@code batch}; others may still hold it. */
    void releasing(Batch batch, int owner);

    /** The last exporter let go of {@code batch}, which is cleared right after. */
    void clearing(Batch batch);
  }

  private final Batch batch;
  private final AtomicInteger owners;
  private final Owners tracker;
  private final int owner;

  public SharedBatch(Batch batch, int owners) {
    this(batch, new AtomicInteger(owners), null, -1);
  }

  /** Exporter {@code owner}'s handle on a batch whose holders {@code owners} counts. */
  SharedBatch(Batch batch, AtomicInteger owners, Owners tracker, int owner) {
    this.batch = batch;
    this.owners = owners;
    this.tracker = tracker;
    this.owner = owner;
  }

  /** The batch; read-only while shared. */
  public Batch batch() {
    return batch;
  }

  public void release() {
    if (tracker != null) {
      tracker.releasing(batch, owner);
    }
    int left = owners.decrementAndGet();
    if (left == 0) {
      if (tracker != null) {
        tracker.clearing(batch);
      }
      batch.clear();
    } else if (left < 0) {
      throw new IllegalStateException("shared batch released too often");
    }
  }
}
