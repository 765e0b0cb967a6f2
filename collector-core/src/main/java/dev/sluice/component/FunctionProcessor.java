package dev.sluice.component;

import dev.sluice.component.telemetry.ProcessorTelemetry;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.logging.Level;

/**
 * A pipeline stage around a {@link BatchFunction}: counts what comes in, applies the function,
 * hands what is left on and counts what the next stage took ({@link ProcessorTelemetry}).
 *
 * <p>A function that throws is a bug; the batch is then dropped (never passed on half processed),
 * the caller is told it was taken, and the drop is logged.
 *
 * <p>A batch the function processed and the next stage refused goes back to the caller as the
 * function left it; when the same batch is offered again it goes straight to the next stage, so
 * that an edit that cannot be applied twice (a hash) is not. Batches are told apart by identity: a
 * caller that offers the refused data again in another batch gets it processed again.
 */
public final class FunctionProcessor<C extends ComponentConfig> implements Processor {
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private final C config;
  private final BatchFunction<C> function;
  private final BatchConsumer next;
  private final ProcessorTelemetry telemetry;
  private final RateLimitedLog failureLog;

  /**
   * Batches processed here and refused downstream, held weakly (a caller may drop them); guarded by
   * itself.
   */
  private final Set<Batch> refusedAfterProcessing = Collections.newSetFromMap(new WeakHashMap<>());

  /**
   * Whether {@link #refusedAfterProcessing} may hold anything, to skip its lock when it does not.
   */
  private volatile boolean anyRefused;

  public FunctionProcessor(
      ComponentSettings settings,
      C config,
      Signal signal,
      BatchFunction<C> function,
      BatchConsumer next) {
    this.config = config;
    this.function = function;
    this.next = next;
    this.telemetry = new ProcessorTelemetry(settings.metrics(), settings.id(), signal);
    this.failureLog = new RateLimitedLog(settings.logger(), Level.SEVERE, LOG_INTERVAL_MILLIS);
  }

  @Override
  public Admission consume(Batch batch) {
    telemetry.incoming(batch.unitCount());
    if (anyRefused && wasRefusedAfterProcessing(batch)) {
      return handOn(batch);
    }
    Admission verdict;
    try {
      verdict = function.apply(batch, config);
    } catch (RuntimeException e) {
      failureLog.log(
          "Dropping "
              + batch.unitCount()
              + " "
              + batch.signal().unitName()
              + ": processor failed: "
              + e);
      batch.clear();
      return Admission.ACCEPTED;
    }
    if (verdict != Admission.ACCEPTED) {
      return verdict;
    }
    return handOn(batch);
  }

  private Admission handOn(Batch batch) {
    long units = batch.unitCount();
    if (units == 0) {
      // Dropped whole, or only empty resource and scope blocks are left: nothing to hand on.
      batch.clear();
      return Admission.ACCEPTED;
    }
    Admission answer = next.consume(batch);
    if (answer == Admission.ACCEPTED) {
      telemetry.outgoing(units);
    } else {
      synchronized (refusedAfterProcessing) {
        refusedAfterProcessing.add(batch);
        anyRefused = true;
      }
    }
    return answer;
  }

  private boolean wasRefusedAfterProcessing(Batch batch) {
    synchronized (refusedAfterProcessing) {
      boolean found = refusedAfterProcessing.remove(batch);
      anyRefused = !refusedAfterProcessing.isEmpty();
      return found;
    }
  }
}
