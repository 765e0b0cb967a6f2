package dev.sluice.processor.probabilisticsampler;

import dev.sluice.processor.probabilisticsampler.ProbabilisticSamplerConfig.Mode;

/**
 * The sampling rule a configuration makes, as the OpenTelemetry Collector's {@code makeSampler}
 * makes it: which randomness is read and which threshold applies to it. Immutable; shared by the
 * trace and log paths.
 */
final class Sampler {
  /** What decides. */
  enum Kind {
    /** Nothing is sampled (0 %, or a percentage the hash's 14 bits round to 0). */
    NEVER,
    /** The legacy FNV hash of the seed and the trace ID (or attribute), at a fixed threshold. */
    HASH,
    /** The trace ID's randomness; the threshold is raised to this sampler's, never lowered. */
    EQUALIZING,
    /** The trace ID's randomness; the arriving probability is multiplied by this sampler's. */
    PROPORTIONAL
  }

  final Kind kind;
  final int hashSeed;

  /** The hash's state after the seed, which every item's hash starts from. */
  final int hashSeedState;

  final boolean failClosed;
  final int precision;
  private final long fixedThreshold;
  private final double ratio;

  Sampler(ProbabilisticSamplerConfig config) {
    hashSeed = (int) config.hashSeed();
    hashSeedState = SamplingMath.seedState(hashSeed);
    failClosed = config.failClosed();
    precision = config.samplingPrecision();
    double probability = Math.max(config.ratio(), SamplingMath.MIN_PROBABILITY);
    ratio = probability;
    Mode mode = config.effectiveMode();
    if (config.samplingPercentage() == 0) {
      kind = Kind.NEVER;
      fixedThreshold = SamplingMath.NEVER;
    } else if (mode == Mode.EQUALIZING) {
      kind = Kind.EQUALIZING;
      fixedThreshold = SamplingMath.probabilityToThreshold(probability, precision);
    } else if (mode == Mode.PROPORTIONAL) {
      kind = Kind.PROPORTIONAL;
      fixedThreshold = SamplingMath.NEVER;
    } else {
      long threshold = SamplingMath.hashThreshold(Math.min(config.samplingPercentage(), 100f));
      kind = threshold == SamplingMath.NEVER ? Kind.NEVER : Kind.HASH;
      fixedThreshold = threshold;
    }
  }

  /** The threshold {@code hash_seed} mode samples at. */
  long hashThreshold() {
    return fixedThreshold;
  }

  /** The threshold for an item whose sampling state was read without error. */
  long decide(boolean hasArrivingThreshold, long arrivingThreshold) {
    switch (kind) {
      case HASH:
        return fixedThreshold;
      case EQUALIZING:
        return hasArrivingThreshold && fixedThreshold < arrivingThreshold
            ? arrivingThreshold
            : fixedThreshold;
      case PROPORTIONAL:
        double incoming = hasArrivingThreshold ? SamplingMath.probability(arrivingThreshold) : 1.0;
        long threshold = SamplingMath.probabilityToThreshold(incoming * ratio, precision);
        // Below the least expressible probability: not sampled.
        return threshold < 0 ? SamplingMath.NEVER : threshold;
      default:
        return SamplingMath.NEVER;
    }
  }

  /** The threshold for an item whose sampling state could not be read. */
  long onError() {
    return failClosed ? SamplingMath.NEVER : SamplingMath.ALWAYS;
  }
}
