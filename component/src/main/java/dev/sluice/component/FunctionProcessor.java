package dev.sluice.component;

import dev.sluice.component.telemetry.ProcessorTelemetry;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.Signal;
import java.util.logging.Level;

/**
 * A pipeline stage around a {@link BatchFunction}: counts what comes in, applies the function,
 * hands what is left on and counts what the next stage took ({@link ProcessorTelemetry}).
 *
 * <p>A function that throws is a bug; the batch is then dropped (never passed on half processed),
 * the caller is told it was taken, and the drop is logged.
 */
public final class FunctionProcessor<C extends ComponentConfig> implements Processor {
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private final C config;
  private final BatchFunction<C> function;
  private final BatchConsumer next;
  private final ProcessorTelemetry telemetry;
  private final RateLimitedLog failureLog;

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
    long units = batch.unitCount();
    if (units == 0) {
      // Dropped whole, or only empty resource and scope blocks are left: nothing to hand on.
      batch.clear();
      return Admission.ACCEPTED;
    }
    Admission answer = next.consume(batch);
    if (answer == Admission.ACCEPTED) {
      telemetry.outgoing(units);
    }
    return answer;
  }
}
