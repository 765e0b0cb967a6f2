package dev.sluice.service;

import dev.sluice.pdata.otlp.Batch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One batch handed to several exporters: each calls {@link #release()} once it has sent or dropped
 * the batch, and the last one clears it, which frees the requests it refers to.
 */
public final class SharedBatch {
  private final Batch batch;
  private final AtomicInteger owners;

  public SharedBatch(Batch batch, int owners) {
    this.batch = batch;
    this.owners = new AtomicInteger(owners);
  }

  /** The batch; read-only while shared. */
  public Batch batch() {
    return batch;
  }

  public void release() {
    int left = owners.decrementAndGet();
    if (left == 0) {
      batch.clear();
    } else if (left < 0) {
      throw new IllegalStateException("shared batch released too often");
    }
  }
}
