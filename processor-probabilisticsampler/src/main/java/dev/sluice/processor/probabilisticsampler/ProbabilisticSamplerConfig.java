package dev.sluice.processor.probabilisticsampler;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;

/**
 * The {@code probabilistic_sampler} processor's configuration, with the OpenTelemetry Collector's
 * keys and defaults.
 *
 * @param samplingPercentage the share of items kept, in percent; above 100 keeps everything, 0
 *     nothing
 * @param hashSeed the seed of the {@code hash_seed} mode's hash (an unsigned 32-bit number);
 *     setting it selects that mode when {@code mode} is not set
 * @param mode {@code hash_seed}, {@code proportional} or {@code equalizing}; empty means {@code
 *     hash_seed}, as in the Collector
 * @param failClosed whether an item whose randomness is missing or whose sampling state is invalid
 *     is dropped (true) or kept
 * @param samplingPrecision hex digits of the {@code th} threshold written, 1 to 14
 * @param attributeSource logs only: {@code traceID} (the record's trace ID, then {@code
 *     from_attribute} when it has none) or {@code record} ({@code from_attribute} only)
 * @param fromAttribute logs only: the record attribute hashed for randomness
 * @param samplingPriority logs only: a record attribute whose number (in percent) overrides the
 *     sampling probability of that record
 */
public record ProbabilisticSamplerConfig(
    float samplingPercentage,
    long hashSeed,
    String mode,
    boolean failClosed,
    int samplingPrecision,
    String attributeSource,
    String fromAttribute,
    String samplingPriority)
    implements ComponentConfig {
  static final String TRACE_ID_SOURCE = "traceID";
  static final String RECORD_SOURCE = "record";
  static final int DEFAULT_PRECISION = 4;
  static final long MAX_HASH_SEED = 0xFFFF_FFFFL;

  public static final ProbabilisticSamplerConfig DEFAULT =
      new ProbabilisticSamplerConfig(0, 0, "", true, DEFAULT_PRECISION, TRACE_ID_SOURCE, "", "");

  /** The sampler modes, by their configuration names. */
  enum Mode {
    HASH_SEED("hash_seed"),
    PROPORTIONAL("proportional"),
    EQUALIZING("equalizing");

    final String key;

    Mode(String key) {
      this.key = key;
    }

    /** The mode named {@code key}, or null for an unknown name. */
    static Mode named(String key) {
      for (Mode mode : values()) {
        if (mode.key.equals(key)) {
          return mode;
        }
      }
      return null;
    }
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (Float.isNaN(samplingPercentage) || Float.isInfinite(samplingPercentage)) {
      problems.add("sampling_percentage", "must be a finite number, was " + samplingPercentage);
    } else if (samplingPercentage < 0) {
      problems.add("sampling_percentage", "must not be negative, was " + samplingPercentage);
    } else if (samplingPercentage > 0 && ratio() < SamplingMath.MIN_PROBABILITY) {
      problems.add(
          "sampling_percentage",
          "is too small: the least that can be sampled is 2^-56, was " + samplingPercentage);
    }
    if (hashSeed < 0 || hashSeed > MAX_HASH_SEED) {
      problems.add("hash_seed", "must be from 0 to " + MAX_HASH_SEED + ", was " + hashSeed);
    }
    if (mode != null && !mode.isEmpty() && Mode.named(mode) == null) {
      problems.add("mode", "must be hash_seed, proportional or equalizing, was \"" + mode + "\"");
    }
    if (samplingPrecision < 1 || samplingPrecision > SamplingMath.HEX_DIGITS) {
      problems.add(
          "sampling_precision",
          "must be from 1 to " + SamplingMath.HEX_DIGITS + " hex digits, was " + samplingPrecision);
    }
    if (attributeSource != null
        && !attributeSource.isEmpty()
        && !attributeSource.equals(TRACE_ID_SOURCE)
        && !attributeSource.equals(RECORD_SOURCE)) {
      problems.add(
          "attribute_source",
          "must be "
              + TRACE_ID_SOURCE
              + " or "
              + RECORD_SOURCE
              + ", was \""
              + attributeSource
              + "\"");
    }
  }

  /** The percentage as a probability, computed from the float as the Collector does. */
  double ratio() {
    return Math.min(samplingPercentage, 100f) / 100.0;
  }

  /**
   * The mode in effect: the one set, or {@code hash_seed} when none is (the Collector's default,
   * and its choice whenever a seed is set or logs are sampled by a record attribute).
   */
  Mode effectiveMode() {
    Mode named = mode == null ? null : Mode.named(mode);
    return named == null ? Mode.HASH_SEED : named;
  }

  /** Whether logs take randomness from the trace ID first ({@code attribute_source: traceID}). */
  boolean logsUseTraceId() {
    // As in the Collector, an empty attribute_source is not traceID.
    return TRACE_ID_SOURCE.equals(attributeSource);
  }
}
