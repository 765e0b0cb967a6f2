package dev.sluice.processor.tailsampling;

import dev.sluice.component.ConfigProblems;

/**
 * {@code rate_limiting} (spans per second) and {@code bytes_limiting} (span bytes per second): a
 * trace is sampled while a token bucket holds enough tokens for all of it, as the OpenTelemetry
 * Collector decides (v0.161.0, the {@code usetracestate} feature gate off): the bucket refills
 * continuously at the rate and holds at most {@code burst_capacity} tokens (default twice the
 * rate); a trace costs its span count (or its bytes) and is refused whole when the bucket is short,
 * taking nothing. A trace larger than {@code burst_capacity} never passes.
 *
 * <p>Time is the decision time ({@link TraceData#nowNanos()}), never the wall clock.
 */
final class RatePolicies {
  private RatePolicies() {}

  static void validate(PolicyConfig policy, ConfigProblems problems) {
    if ("rate_limiting".equals(policy.type())) {
      PolicyConfig.RateLimiting rate = rateLimiting(policy);
      checkRate("spans_per_second", rate.spansPerSecond(), "spans", problems);
      checkBurst(rate.burstCapacity(), rate.spansPerSecond(), "spans", problems);
    } else {
      PolicyConfig.BytesLimiting rate = bytesLimiting(policy);
      checkRate("bytes_per_second", rate.bytesPerSecond(), "bytes", problems);
      checkBurst(rate.burstCapacity(), rate.bytesPerSecond(), "bytes", problems);
    }
  }

  // The Collector accepts 0 and below, and then samples nothing: refused here as meaningless.
  private static void checkRate(String key, long perSecond, String unit, ConfigProblems problems) {
    if (perSecond < 1) {
      problems.add(key, "must be at least 1 (" + unit + " per second), was " + perSecond);
    } else if (perSecond > Long.MAX_VALUE / 2) {
      problems.add(key, "must be at most " + Long.MAX_VALUE / 2 + ", was " + perSecond);
    }
  }

  private static void checkBurst(
      long burstCapacity, long perSecond, String unit, ConfigProblems problems) {
    if (burstCapacity < 0) {
      problems.add(
          "burst_capacity",
          "must not be negative (0: twice the rate, "
              + (perSecond > 0 ? 2 * perSecond + " " : "")
              + unit
              + "), was "
              + burstCapacity);
    }
  }

  static PolicyEvaluator compile(PolicyConfig policy) {
    if ("rate_limiting".equals(policy.type())) {
      PolicyConfig.RateLimiting rate = rateLimiting(policy);
      TokenBucket bucket =
          new TokenBucket(
              rate.spansPerSecond(), burst(rate.burstCapacity(), rate.spansPerSecond()));
      return trace ->
          bucket.allow(trace.nowNanos(), trace.spanCount())
              ? Decision.SAMPLED
              : Decision.NOT_SAMPLED;
    }
    PolicyConfig.BytesLimiting rate = bytesLimiting(policy);
    TokenBucket bucket =
        new TokenBucket(rate.bytesPerSecond(), burst(rate.burstCapacity(), rate.bytesPerSecond()));
    return trace ->
        bucket.allow(trace.nowNanos(), trace.bytes()) ? Decision.SAMPLED : Decision.NOT_SAMPLED;
  }

  /** The Collector's rule: a burst capacity of 0 or less means twice the rate. */
  private static long burst(long burstCapacity, long perSecond) {
    return burstCapacity > 0 ? burstCapacity : 2 * perSecond;
  }

  private static PolicyConfig.RateLimiting rateLimiting(PolicyConfig policy) {
    return policy.rateLimiting() != null
        ? policy.rateLimiting()
        : new PolicyConfig.RateLimiting(0, 0);
  }

  private static PolicyConfig.BytesLimiting bytesLimiting(PolicyConfig policy) {
    return policy.bytesLimiting() != null
        ? policy.bytesLimiting()
        : new PolicyConfig.BytesLimiting(0, 0);
  }

  /**
   * The token bucket the Collector takes from {@code golang.org/x/time/rate} (v0.16.0), asked with
   * {@code AllowN(now, n)}: the same arithmetic in doubles, so the same traces pass. Not
   * thread-safe; the processor calls it under its lock.
   */
  static final class TokenBucket {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final double tokensPerSecond;
    private final long burst;
    private double tokens;
    private long lastNanos;
    // Before the first trace that passes, the bucket is full whatever the time (Go's zero time).
    private boolean started;

    TokenBucket(long tokensPerSecond, long burst) {
      this.tokensPerSecond = tokensPerSecond;
      this.burst = burst;
      this.tokens = burst;
    }

    /**
     * Takes {@code n} tokens at {@code nowNanos} if the bucket holds them, and says whether it did;
     * when it does not, nothing changes.
     */
    boolean allow(long nowNanos, long n) {
      double left = tokensAt(nowNanos) - n;
      long waitNanos = left < 0 ? nanosToAccumulate(-left) : 0;
      // Go allows a deficit that refills in under a nanosecond (the wait rounds to 0).
      if (n > burst || waitNanos > 0) {
        return false;
      }
      lastNanos = nowNanos;
      tokens = left;
      started = true;
      return true;
    }

    /** The tokens at {@code nowNanos}: those left, plus the refill since, up to the burst. */
    double tokensAt(long nowNanos) {
      if (!started) {
        return tokens;
      }
      long last = Math.min(lastNanos, nowNanos);
      double refilled = tokens + tokensIn(saturatedDifference(nowNanos, last));
      return Math.min(refilled, burst);
    }

    private double tokensIn(long elapsedNanos) {
      if (tokensPerSecond <= 0) {
        return 0;
      }
      // Go's Duration.Seconds: whole seconds plus the nanoseconds' fraction, then times the rate.
      double seconds =
          (double) (elapsedNanos / NANOS_PER_SECOND)
              + (double) (elapsedNanos % NANOS_PER_SECOND) / 1e9;
      return seconds * tokensPerSecond;
    }

    private long nanosToAccumulate(double missing) {
      if (tokensPerSecond <= 0) {
        return Long.MAX_VALUE;
      }
      double nanos = (missing / tokensPerSecond) * 1e9;
      return nanos > (double) Long.MAX_VALUE ? Long.MAX_VALUE : (long) nanos;
    }

    private static long saturatedDifference(long later, long earlier) {
      long difference = later - earlier;
      return ((later ^ earlier) & (later ^ difference)) < 0 ? Long.MAX_VALUE : difference;
    }
  }
}
