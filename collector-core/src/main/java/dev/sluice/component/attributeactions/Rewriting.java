package dev.sluice.component.attributeactions;

import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.otlp.AttributeActions;
import dev.sluice.pdata.otlp.AttributeRewriter;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One thread's {@link AttributeRewriter}, and what it has reported of its failures: messages that
 * did not parse (logged as warnings) and values a {@code convert} action left as they were (logged
 * at {@code FINE}, as the Go collector logs them at debug), both rate-limited.
 */
public final class Rewriting {
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  /** The logs of one processor, shared by its threads. */
  public static final class Logs {
    private final RateLimitedLog malformed;
    private final RateLimitedLog unconverted;
    private final String what;

    public Logs(Logger logger, String what) {
      this.malformed = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
      this.unconverted = new RateLimitedLog(logger, Level.FINE, LOG_INTERVAL_MILLIS);
      this.what = what;
    }
  }

  private final AttributeRewriter rewriter;
  private long reportedMalformed;
  private long reportedUnconverted;

  public Rewriting(AttributeActions actions) {
    this.rewriter = new AttributeRewriter(actions);
  }

  public AttributeRewriter rewriter() {
    return rewriter;
  }

  /** Logs what failed since the last report. */
  public void report(Logs logs) {
    long malformed = rewriter.malformedCount();
    if (malformed != reportedMalformed) {
      logs.malformed.log(
          "Left "
              + (malformed - reportedMalformed)
              + " "
              + logs.what
              + " unchanged: their bytes do not parse");
      reportedMalformed = malformed;
    }
    long unconverted = rewriter.unconvertedCount();
    if (unconverted != reportedUnconverted) {
      logs.unconverted.log(
          "Left "
              + (unconverted - reportedUnconverted)
              + " attribute values unconverted: not convertible to the converted_type");
      reportedUnconverted = unconverted;
    }
  }
}
