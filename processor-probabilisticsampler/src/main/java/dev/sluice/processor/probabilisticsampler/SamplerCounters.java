package dev.sluice.processor.probabilisticsampler;

import dev.sluice.component.ComponentId;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.MetricRegistry.Counter;

/**
 * The sampler's decisions counted as the OpenTelemetry Collector counts them, per {@code policy}
 * and {@code sampled}: {@code otelcol_processor_probabilistic_sampler_count_traces_sampled} and
 * {@code ..._count_spans_processed} (the same count under the name the Collector moved it to) for
 * spans, {@code ..._count_logs_sampled} for log records. A pass counts into its own array and adds
 * it here once per batch.
 */
final class SamplerCounters {
  static final String TRACES_SAMPLED =
      "otelcol_processor_probabilistic_sampler_count_traces_sampled";
  static final String SPANS_PROCESSED =
      "otelcol_processor_probabilistic_sampler_count_spans_processed";
  static final String LOGS_SAMPLED = "otelcol_processor_probabilistic_sampler_count_logs_sampled";

  private static final int SLOTS = Policy.values().length * 2;

  private final Counter[][] counters;

  private SamplerCounters(Counter[][] counters) {
    this.counters = counters;
  }

  static SamplerCounters forSpans(MetricRegistry metrics, ComponentId processor) {
    return new SamplerCounters(
        new Counter[][] {
          counters(
              metrics, TRACES_SAMPLED, "Count of spans that were sampled or not", processor, ""),
          counters(
              metrics, SPANS_PROCESSED, "Count of spans that were sampled or not", processor, "")
        });
  }

  static SamplerCounters forLogs(MetricRegistry metrics, ComponentId processor, String attribute) {
    return new SamplerCounters(
        new Counter[][] {
          counters(
              metrics, LOGS_SAMPLED, "Count of logs that were sampled or not", processor, attribute)
        });
  }

  private static Counter[] counters(
      MetricRegistry metrics, String name, String help, ComponentId processor, String attribute) {
    Counter[] slots = new Counter[SLOTS];
    for (Policy policy : Policy.values()) {
      String label = policy == Policy.ATTRIBUTE ? attribute : policy.label;
      if (policy == Policy.ATTRIBUTE && attribute.isEmpty()) {
        continue;
      }
      for (int sampled = 0; sampled < 2; sampled++) {
        slots[slot(policy, sampled == 1)] =
            metrics.counter(
                name,
                help,
                "processor",
                processor.toString(),
                "policy",
                label,
                "sampled",
                Boolean.toString(sampled == 1));
      }
    }
    return slots;
  }

  /** A pass's array for {@link #count} and {@link #flush}. */
  static long[] newCounts() {
    return new long[SLOTS];
  }

  static void count(long[] counts, Policy policy, boolean sampled) {
    counts[slot(policy, sampled)]++;
  }

  /** Adds {@code counts} to the counters and zeroes it. */
  void flush(long[] counts) {
    for (int i = 0; i < SLOTS; i++) {
      if (counts[i] != 0) {
        for (Counter[] family : counters) {
          if (family[i] != null) {
            family[i].add(counts[i]);
          }
        }
        counts[i] = 0;
      }
    }
  }

  /** The place of a policy's sampled or not sampled count in a pass's array. */
  static int slot(Policy policy, boolean sampled) {
    return policy.ordinal() * 2 + (sampled ? 1 : 0);
  }
}
