package dev.sluice.component;

import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * How a connector that keeps state and hands it on from time to time (span metrics, service graph
 * metrics) hands on the request it builds from it, under the connectors' backpressure rule: a
 * hand-off the pipelines refuse is remembered, and the connector refuses what it is given ({@link
 * #refusing()}) until a later hand-off is taken, keeping its state meanwhile. What goes wrong is
 * logged, at most once every ten seconds for refusals.
 *
 * <p>What the state was made from ({@link #madeFrom}) goes with the next hand-off, so that the
 * logged requests among it stay owed in the write-ahead log until the data made from them is
 * delivered ({@link ConnectorOutput.Sources}); it is let go of once a hand-off is taken or dropped
 * for good. Not thread-safe: the connector calls it under its lock.
 */
public final class StateHandoff {
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private final ConnectorOutput output;
  private final Logger logger;
  private final String what;
  private final RateLimitedLog refusedLog;
  private final ConnectorOutput.Sources sources;
  private boolean refusing;

  /**
   * @param what the data handed on, for log lines ({@code "the span metrics"})
   */
  public StateHandoff(ConnectorOutput output, Logger logger, String what) {
    this.output = output;
    this.logger = logger;
    this.what = what;
    this.refusedLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
    this.sources = output.sources();
  }

  /**
   * The state now holds data made from {@code batch}, which the caller still holds (it may let go
   * of it after this): its logged requests go with the next hand-off.
   */
  public void madeFrom(Batch batch) {
    sources.add(batch);
  }

  /**
   * The state now holds data made from what {@code earlier} holds owed (sources of this output the
   * connector kept apart, to hand on only now): it goes with the next hand-off. The caller may
   * release {@code earlier} after this.
   */
  public void madeFrom(ConnectorOutput.Sources earlier) {
    sources.addAll(earlier);
  }

  /**
   * Builds the request with {@code write} (which returns null when there is nothing to hand on) and
   * hands it on. True when the state it was built from is done with: the pipelines took the
   * request, or it can never be handed on (a pipeline failed on it, or it is larger than one
   * request may be: {@code write} threw {@link IllegalStateException}), which is logged. False when
   * the pipelines refused it for now (full, or stopping): keep the state; {@link #refusing()} is
   * true until a hand-off is taken.
   */
  public boolean handOn(Supplier<OtlpIndex> write) {
    OtlpIndex request;
    try {
      request = write.get();
    } catch (IllegalStateException e) {
      // Over the largest request the indexer takes (64 MiB): it can never be handed on.
      logger.log(Level.SEVERE, what + " are too large for one request; they are dropped", e);
      sources.release();
      refusing = false;
      return true;
    }
    Admission admission = request == null ? Admission.ACCEPTED : output.consume(request, sources);
    switch (admission) {
      case ACCEPTED -> {
        sources.release(); // the request taken keeps them owed until it is delivered
        refusing = false;
        return true;
      }
      case FAILED -> {
        // A pipeline failed on the request and would fail again: it counted the failure; keeping
        // the state would refuse for good.
        logger.warning("a pipeline failed on " + what + "; this hand-off is dropped");
        sources.release();
        refusing = false;
        return true;
      }
      default -> {
        if (!refusing) {
          refusedLog.log(
              "the pipelines refused "
                  + what
                  + " ("
                  + admission
                  + "): what the connector is given is refused until a hand-off is taken");
        }
        refusing = true;
        return false;
      }
    }
  }

  /** Whether the last hand-off was refused, and none has been taken since. */
  public boolean refusing() {
    return refusing;
  }
}
