package dev.sluice.component;

import dev.sluice.pdata.Batch;

/** A stage of a pipeline that takes batches: a processor, or the exporters at its end. */
public interface BatchConsumer {
  /**
   * Offers a batch. On {@link Admission#ACCEPTED} the consumer owns it (it may move or clear its
   * slices); otherwise the batch is unchanged and still the caller's.
   */
  Admission consume(Batch batch);
}
