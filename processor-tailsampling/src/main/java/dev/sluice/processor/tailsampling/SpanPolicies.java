package dev.sluice.processor.tailsampling;

import dev.sluice.component.ConfigProblems;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.view.SpanView;
import dev.sluice.pdata.view.TextView;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The policies that decide from the trace's spans as a whole or from fields of the spans: {@code
 * always_sample}, {@code latency}, {@code probabilistic}, {@code status_code}, {@code span_count},
 * {@code trace_state} and {@code trace_flags}, deciding as the OpenTelemetry Collector's
 * tailsamplingprocessor v0.161.0 does (the places where Sluice does better are said where they
 * are).
 */
final class SpanPolicies {
  private SpanPolicies() {}

  static void validate(PolicyConfig policy, ConfigProblems problems) {
    switch (policy.type()) {
      case "latency" -> validateLatency(policy.latency(), problems);
      case "probabilistic" -> validateProbabilistic(policy.probabilistic(), problems);
      case "status_code" -> validateStatusCode(policy.statusCode(), problems);
      case "span_count" -> validateSpanCount(policy.spanCount(), problems);
      case "trace_state" -> validateTraceState(policy.traceState(), problems);
      default -> {} // always_sample and trace_flags have no settings
    }
  }

  static PolicyEvaluator compile(PolicyConfig policy) {
    return switch (policy.type()) {
      case "always_sample" -> trace -> Decision.SAMPLED;
      case "latency" -> new Latency(orZero(policy.latency()));
      case "probabilistic" -> new Probabilistic(orZero(policy.probabilistic()));
      case "status_code" -> new StatusCodes(policy.statusCode().statusCodes());
      case "span_count" -> spanCount(orZero(policy.spanCount()));
      case "trace_state" -> new TraceStateMatch(policy.traceState());
      case "trace_flags" -> new TraceFlags();
      default -> throw new IllegalArgumentException("not a span policy: " + policy.type());
    };
  }

  // ---- latency

  private static PolicyConfig.Latency orZero(PolicyConfig.Latency latency) {
    return latency != null ? latency : new PolicyConfig.Latency(0, 0);
  }

  private static void validateLatency(PolicyConfig.Latency latency, ConfigProblems problems) {
    PolicyConfig.Latency l = orZero(latency);
    if (l.thresholdMs() < 0) {
      problems.add("threshold_ms", "must not be negative, was " + l.thresholdMs());
    }
    if (l.upperThresholdMs() < 0) {
      problems.add(
          "upper_threshold_ms",
          "must not be negative (0: no upper bound), was " + l.upperThresholdMs());
    } else if (l.upperThresholdMs() > 0 && l.upperThresholdMs() <= l.thresholdMs()) {
      problems.add(
          "upper_threshold_ms",
          "must be above threshold_ms ("
              + l.thresholdMs()
              + ") or 0 for no upper bound, was "
              + l.upperThresholdMs()
              + ": no trace would be sampled");
    }
  }

  /**
   * Samples a trace whose duration, from its earliest span start to its latest span end, in whole
   * milliseconds (truncated), is above {@code threshold_ms} and, when {@code upper_threshold_ms} is
   * set, at most that.
   *
   * <p>Better than the Collector in two places. The Collector checks the bounds after each span,
   * with the start and end seen so far, and samples at the first span where they hold: with an
   * upper bound, a trace of 1 s is sampled by {@code 100 < d <= 200} when a span of 150 ms comes
   * first. Sluice checks the whole trace's duration once. And the Collector takes a zero timestamp
   * (unset) as "none seen yet", so an unset start counts only when it is on the last span (the
   * duration then runs from 1970); Sluice leaves unset timestamps out, and a trace with no set
   * start or no set end has no duration and is not sampled.
   */
  static final class Latency extends SpanWalk {
    private final long thresholdMs;
    private final long upperThresholdMs;
    private long minStart;
    private long maxEnd;

    Latency(PolicyConfig.Latency config) {
      this.thresholdMs = config.thresholdMs();
      this.upperThresholdMs = config.upperThresholdMs();
    }

    @Override
    void begin() {
      minStart = 0;
      maxEnd = 0;
    }

    @Override
    Decision end(TraceData trace) {
      if (minStart == 0 || maxEnd == 0) {
        return Decision.NOT_SAMPLED;
      }
      long durationMs = saturatingDifference(maxEnd, minStart) / 1_000_000;
      boolean inRange =
          upperThresholdMs == 0
              ? durationMs > thresholdMs
              : thresholdMs < durationMs && durationMs <= upperThresholdMs;
      return inRange ? Decision.SAMPLED : Decision.NOT_SAMPLED;
    }

    @Override
    public void visit(BatchItem item) {
      SpanView span = item.span();
      // Timestamps are unsigned on the wire and compared so; the difference is taken signed and
      // saturated, as Go's time.Time.Sub does.
      long start = span.startTimeUnixNano();
      long end = span.endTimeUnixNano();
      if (start != 0 && (minStart == 0 || Long.compareUnsigned(start, minStart) < 0)) {
        minStart = start;
      }
      if (end != 0 && (maxEnd == 0 || Long.compareUnsigned(end, maxEnd) > 0)) {
        maxEnd = end;
      }
    }

    private static long saturatingDifference(long a, long b) {
      long d = a - b;
      // Overflow when a and b have different signs and the result's sign differs from a's.
      if (((a ^ b) & (a ^ d)) < 0) {
        return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
      }
      return d;
    }
  }

  // ---- probabilistic

  /** Go's salt when {@code hash_salt} is empty. */
  static final String DEFAULT_HASH_SALT = "default-hash-seed";

  private static final long FNV64_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV64_PRIME = 0x100000001b3L;

  private static PolicyConfig.Probabilistic orZero(PolicyConfig.Probabilistic probabilistic) {
    return probabilistic != null ? probabilistic : new PolicyConfig.Probabilistic(null, 0);
  }

  private static void validateProbabilistic(
      PolicyConfig.Probabilistic probabilistic, ConfigProblems problems) {
    double percentage = orZero(probabilistic).samplingPercentage();
    // The Collector takes anything above 100 as 100 and anything below 0 as 0; such a value is a
    // mistake, so it is refused.
    if (!(percentage >= 0 && percentage <= 100)) {
      problems.add("sampling_percentage", "must be a percentage from 0 to 100, was " + percentage);
    }
  }

  /**
   * Samples a share of traces by the Collector's hash: FNV-1a (64 bits) of the salt's UTF-8 bytes
   * followed by the 16 bytes of the trace ID, sampled when at most {@code (2^64 - 1) *
   * sampling_percentage / 100} (unsigned), computed as Go's {@code math/big} computes it. So a
   * Sluice and a Collector with the same salt and percentage keep the same traces.
   *
   * <p>The Collector's {@code processor.tailsamplingprocessor.usetracestate} feature gate (alpha,
   * off by default), which reads {@code rv} and {@code th} from the {@code ot} tracestate instead,
   * is not followed: decisions are those of the Collector as it runs by default.
   */
  static final class Probabilistic implements PolicyEvaluator {
    private static final BigInteger UINT64_MAX =
        BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private final long saltHash;
    private final long threshold;

    Probabilistic(PolicyConfig.Probabilistic config) {
      this.saltHash = saltHash(config.hashSalt());
      this.threshold = threshold(config.samplingPercentage() / 100);
    }

    @Override
    public Decision evaluate(TraceData trace) {
      long hash = hash(saltHash, trace.traceIdHigh(), trace.traceIdLow());
      return Long.compareUnsigned(hash, threshold) <= 0 ? Decision.SAMPLED : Decision.NOT_SAMPLED;
    }

    /** FNV-1a of the trace ID's 16 bytes (big-endian halves), continuing from {@code h}. */
    static long hash(long h, long traceIdHigh, long traceIdLow) {
      for (int shift = 56; shift >= 0; shift -= 8) {
        h = (h ^ ((traceIdHigh >>> shift) & 0xff)) * FNV64_PRIME;
      }
      for (int shift = 56; shift >= 0; shift -= 8) {
        h = (h ^ ((traceIdLow >>> shift) & 0xff)) * FNV64_PRIME;
      }
      return h;
    }

    /** FNV-1a over the salt's UTF-8 bytes ({@value #DEFAULT_HASH_SALT} when empty). */
    static long saltHash(String salt) {
      String used = salt == null || salt.isEmpty() ? DEFAULT_HASH_SALT : salt;
      long h = FNV64_OFFSET;
      for (byte b : used.getBytes(StandardCharsets.UTF_8)) {
        h = (h ^ (b & 0xff)) * FNV64_PRIME;
      }
      return h;
    }

    /**
     * {@code (2^64 - 1) * ratio} as the Collector computes it with {@code math/big}: the exact
     * product rounded to 64 significant bits (half to even), then truncated to an unsigned 64-bit
     * integer (0 below 0, all ones above).
     */
    static long threshold(double ratio) {
      if (Double.isNaN(ratio) || ratio <= 0) {
        return 0;
      }
      if (Double.isInfinite(ratio) || ratio >= 1) {
        return -1L; // 2^64 - 1
      }
      // ratio = mantissa * 2^exponent exactly.
      long bits = Double.doubleToRawLongBits(ratio);
      int biased = (int) ((bits >>> 52) & 0x7ff);
      long mantissa = bits & ((1L << 52) - 1);
      int exponent;
      if (biased == 0) {
        exponent = -1074;
      } else {
        mantissa |= 1L << 52;
        exponent = biased - 1075;
      }
      BigInteger product = UINT64_MAX.multiply(BigInteger.valueOf(mantissa));
      int excess = product.bitLength() - 64;
      if (excess > 0) {
        BigInteger kept = product.shiftRight(excess);
        BigInteger dropped = product.subtract(kept.shiftLeft(excess));
        int half = dropped.compareTo(BigInteger.ONE.shiftLeft(excess - 1));
        if (half > 0 || (half == 0 && kept.testBit(0))) {
          kept = kept.add(BigInteger.ONE);
        }
        product = kept.shiftLeft(excess);
      }
      BigInteger value =
          exponent >= 0 ? product.shiftLeft(exponent) : product.shiftRight(-exponent);
      return value.compareTo(UINT64_MAX) >= 0 ? -1L : value.longValue();
    }
  }

  // ---- status_code

  private static void validateStatusCode(
      PolicyConfig.StatusCode statusCode, ConfigProblems problems) {
    List<String> codes = statusCode == null ? null : statusCode.statusCodes();
    if (codes == null || codes.isEmpty()) {
      problems.add("status_codes", "expected at least one status code: OK, ERROR or UNSET");
      return;
    }
    for (int i = 0; i < codes.size(); i++) {
      if (statusCodeNumber(codes.get(i)) < 0) {
        problems
            .under("status_codes")
            .item(i)
            .add("", "unknown status code \"" + codes.get(i) + "\", expected OK, ERROR or UNSET");
      }
    }
  }

  /** The status code's number, or -1 for a name the Collector does not know (case matters). */
  private static int statusCodeNumber(String name) {
    if (name == null) {
      return -1;
    }
    return switch (name) {
      case "UNSET" -> SpanView.STATUS_UNSET;
      case "OK" -> SpanView.STATUS_OK;
      case "ERROR" -> SpanView.STATUS_ERROR;
      default -> -1;
    };
  }

  /** Samples a trace when one of its spans matches; the walk reads no span after that one. */
  abstract static class AnySpan extends SpanWalk {
    private boolean found;

    abstract boolean matches(BatchItem item);

    @Override
    final void begin() {
      found = false;
    }

    @Override
    final Decision end(TraceData trace) {
      return found ? Decision.SAMPLED : Decision.NOT_SAMPLED;
    }

    @Override
    public final void visit(BatchItem item) {
      if (!found) {
        found = matches(item);
      }
    }
  }

  /** Samples a trace with a span whose status code is one of those given. */
  static final class StatusCodes extends AnySpan {
    private final int codeMask;

    StatusCodes(List<String> codes) {
      int mask = 0;
      for (String code : codes) {
        mask |= 1 << statusCodeNumber(code);
      }
      this.codeMask = mask;
    }

    @Override
    boolean matches(BatchItem item) {
      int code = item.span().statusCode();
      // A code newer than ERROR is none of the three names, so matches nothing.
      return code >= 0 && code <= SpanView.STATUS_ERROR && (codeMask & (1 << code)) != 0;
    }
  }

  // ---- span_count

  private static PolicyConfig.SpanCount orZero(PolicyConfig.SpanCount spanCount) {
    return spanCount != null ? spanCount : new PolicyConfig.SpanCount(0, 0);
  }

  private static void validateSpanCount(PolicyConfig.SpanCount spanCount, ConfigProblems problems) {
    PolicyConfig.SpanCount s = orZero(spanCount);
    if (s.minSpans() < 0) {
      problems.add("min_spans", "must not be negative, was " + s.minSpans());
    }
    if (s.maxSpans() < 0) {
      problems.add("max_spans", "must not be negative (0: no upper bound), was " + s.maxSpans());
    } else if (s.maxSpans() > 0 && s.maxSpans() < s.minSpans()) {
      problems.add(
          "max_spans",
          "must be at least min_spans ("
              + s.minSpans()
              + ") or 0 for no upper bound, was "
              + s.maxSpans()
              + ": no trace would be sampled");
    }
  }

  /**
   * Samples a trace with at least {@code min_spans} spans and, unless {@code max_spans} is 0, at
   * most {@code max_spans}.
   */
  private static PolicyEvaluator spanCount(PolicyConfig.SpanCount config) {
    long min = config.minSpans();
    long max = config.maxSpans();
    return trace -> {
      long count = trace.spanCount();
      boolean inRange = count >= min && (max == 0 || count <= max);
      return inRange ? Decision.SAMPLED : Decision.NOT_SAMPLED;
    };
  }

  // ---- trace_state

  /** At most this many list-members in a tracestate, as W3C Trace Context and Go's parser say. */
  static final int MAX_TRACE_STATE_MEMBERS = 32;

  private static void validateTraceState(
      PolicyConfig.TraceState traceState, ConfigProblems problems) {
    String key = traceState == null ? null : traceState.key();
    List<String> values = traceState == null ? null : traceState.values();
    if (key == null || key.isEmpty()) {
      problems.add("key", "is required: the tracestate key to look at");
    } else if (!W3cTraceState.validKey(utf8(key))) {
      problems.add(
          "key",
          "\""
              + key
              + "\" is not a W3C tracestate key (lowercase letters, digits, _ - * /, starting"
              + " with a letter, or tenant@system): no span would match");
    }
    if (values == null || values.isEmpty()) {
      problems.add("values", "expected at least one value to match");
      return;
    }
    int keyLength = key == null ? 0 : utf8(key).length;
    for (int i = 0; i < values.size(); i++) {
      String value = values.get(i);
      ConfigProblems at = problems.under("values").item(i);
      if (value == null || value.isEmpty()) {
        at.add("", "an empty value matches nothing");
      } else if (!W3cTraceState.validValue(utf8(value), 0, utf8(value).length)) {
        at.add(
            "",
            "\""
                + value
                + "\" is not a W3C tracestate value (1 to 256 printable ASCII characters, no"
                + " ',' or '=', not ending in a space): no span would match");
      } else if (keyLength + utf8(value).length >= 256) {
        // The Collector leaves such values out of its set without a word.
        at.add(
            "",
            "key and value together must be under 256 characters, were "
                + (keyLength + utf8(value).length));
      }
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Samples a trace with a span whose tracestate parses as a W3C list (as Go's {@code
   * trace.ParseTraceState} parses it: at most 32 members, no duplicate keys, every key and value
   * well-formed, or the span's tracestate counts as empty) and has the key with one of the values.
   */
  static final class TraceStateMatch extends AnySpan {
    private final byte[] key;
    private final byte[][] values;
    private final W3cTraceState parser = new W3cTraceState();

    TraceStateMatch(PolicyConfig.TraceState config) {
      this.key = utf8(config.key());
      List<byte[]> kept = new ArrayList<>();
      for (String value : config.values()) {
        byte[] bytes = utf8(value);
        // As the Collector: empty values and those too long for a list-member are left out.
        if (bytes.length > 0 && key.length + bytes.length < 256) {
          kept.add(bytes);
        }
      }
      this.values = kept.toArray(new byte[0][]);
    }

    @Override
    boolean matches(BatchItem item) {
      TextView traceState = item.span().traceState();
      if (traceState.isEmpty() || !parser.parse(traceState)) {
        return false;
      }
      int at = parser.find(key);
      if (at < 0) {
        return false;
      }
      for (byte[] value : values) {
        if (parser.valueEquals(at, value)) {
          return true;
        }
      }
      return false;
    }
  }

  // ---- trace_flags

  /** Samples a trace with a span whose W3C trace flags have the sampled bit set. */
  static final class TraceFlags extends AnySpan {
    private static final int SAMPLED_FLAG = 0x01;

    @Override
    boolean matches(BatchItem item) {
      return (item.span().flags() & SAMPLED_FLAG) != 0;
    }
  }
}
