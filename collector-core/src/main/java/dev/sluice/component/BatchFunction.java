package dev.sluice.component;

import dev.sluice.pdata.Batch;

/**
 * A processor written as a function over a batch and its typed configuration; {@link
 * FunctionProcessor} makes it a pipeline stage, hands what it keeps to the next stage and counts
 * {@code otelcol_processor_incoming_items} and {@code otelcol_processor_outgoing_items} for it.
 *
 * <p>The function may drop items (cut slices, {@link Batch#moveTo}, {@link Batch#clear}) or point
 * slices at re-encoded items; it must not keep the batch, or views over it, past the call. When the
 * next stage refuses, the batch goes back to whoever offered it, as the function left it, and may
 * be offered again: a function should give the same answer for a batch it has already processed. It
 * must not block, since it runs on a receiver's event loop or a batch timer.
 *
 * @param <C> the processor's configuration
 */
@FunctionalInterface
public interface BatchFunction<C extends ComponentConfig> {
  /**
   * Processes {@code batch} in place.
   *
   * @return {@link Admission#ACCEPTED} to hand on what is left of the batch (nothing is handed on
   *     when no units are left), or {@link Admission#FULL} / {@link Admission#CLOSED} to refuse it,
   *     left unchanged
   */
  Admission apply(Batch batch, C config);
}
