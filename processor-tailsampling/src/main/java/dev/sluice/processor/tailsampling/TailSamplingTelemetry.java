package dev.sluice.processor.tailsampling;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.ProcessorTelemetry;
import dev.sluice.pdata.Signal;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The processor's metrics, in the OpenTelemetry Collector's names where it has them ({@code
 * otelcol_processor_tail_sampling_*}), and Sluice's own for what it does beyond: traces decided
 * early, by the bound that made it, and the bytes and traces held.
 */
final class TailSamplingTelemetry {
  private static final String PREFIX = "otelcol_processor_tail_sampling_";
  private static final String[] DECISIONS = {"sampled", "not_sampled", "dropped"};

  private final ProcessorTelemetry processor;
  // Per policy, per decision (DECISIONS): traces, spans and bytes.
  private final MetricRegistry.Counter[][] traces;
  private final MetricRegistry.Counter[][] spans;
  private final MetricRegistry.Counter[][] bytes;
  private final MetricRegistry.Counter[] executions;
  private final MetricRegistry.Counter[] executionMicros;
  private final MetricRegistry.Counter[] global;
  private final MetricRegistry.Counter evaluationErrors;
  private final MetricRegistry.Counter newTraces;
  private final MetricRegistry.Counter cachedSampled;
  private final MetricRegistry.Counter cachedNotSampled;
  private final MetricRegistry.Histogram lateSpanAge;
  private final MetricRegistry.Histogram tickMillis;
  private final MetricRegistry.Counter tooLarge;
  private final MetricRegistry.Counter earlyByTraces;
  private final MetricRegistry.Counter earlyByBytes;
  private final MetricRegistry.Counter earlyAtShutdown;
  private final MetricRegistry.Counter dropped;
  private volatile long heldTraces;
  private volatile long waitingTraces;
  private volatile long heldBytes;

  TailSamplingTelemetry(ComponentSettings settings, List<Policies.Named> policies) {
    MetricRegistry metrics = settings.metrics();
    String id = settings.id().toString();
    processor = new ProcessorTelemetry(metrics, settings.id(), Signal.TRACES);
    int n = policies.size();
    traces = new MetricRegistry.Counter[n][DECISIONS.length];
    spans = new MetricRegistry.Counter[n][DECISIONS.length];
    bytes = new MetricRegistry.Counter[n][DECISIONS.length];
    executions = new MetricRegistry.Counter[n];
    executionMicros = new MetricRegistry.Counter[n];
    for (int p = 0; p < n; p++) {
      String policy = policies.get(p).name();
      for (int d = 0; d < DECISIONS.length; d++) {
        String[] labels = {
          "processor",
          id,
          "policy",
          policy,
          "sampled",
          String.valueOf(d == 0),
          "decision",
          DECISIONS[d]
        };
        traces[p][d] =
            metrics.counter(
                PREFIX + "count_traces_sampled",
                "Count of traces that were sampled or not per sampling policy",
                labels);
        spans[p][d] =
            metrics.counter(
                PREFIX + "count_spans_sampled",
                "Count of spans that were sampled or not per sampling policy",
                labels);
        bytes[p][d] =
            metrics.counter(
                PREFIX + "count_bytes_sampled",
                "Count of bytes that were sampled or not per sampling policy",
                labels);
      }
      executions[p] =
          metrics.counter(
              PREFIX + "sampling_policy_execution_count",
              "Total number of policy executions",
              "processor",
              id,
              "policy",
              policy);
      executionMicros[p] =
          metrics.counter(
              PREFIX + "sampling_policy_execution_time_sum",
              "Total time spent executing the policy, in microseconds",
              "processor",
              id,
              "policy",
              policy);
    }
    global = new MetricRegistry.Counter[DECISIONS.length];
    for (int d = 0; d < DECISIONS.length; d++) {
      global[d] =
          metrics.counter(
              PREFIX + "global_count_traces_sampled",
              "Global count of traces that were sampled or not by at least one policy",
              "processor",
              id,
              "sampled",
              String.valueOf(d == 0),
              "decision",
              DECISIONS[d]);
    }
    evaluationErrors =
        metrics.counter(
            PREFIX + "sampling_policy_evaluation_error",
            "Count of sampling policy evaluation errors",
            "processor",
            id);
    newTraces =
        metrics.counter(
            PREFIX + "new_trace_id_received", "Counts the arrival of new traces", "processor", id);
    String cacheHelp = "Number of spans released at once by a decision cache hit";
    cachedSampled =
        metrics.counter(
            PREFIX + "early_releases_from_cache_decision",
            cacheHelp,
            "processor",
            id,
            "sampled",
            "true");
    cachedNotSampled =
        metrics.counter(
            PREFIX + "early_releases_from_cache_decision",
            cacheHelp,
            "processor",
            id,
            "sampled",
            "false");
    lateSpanAge =
        metrics.histogram(
            PREFIX + "sampling_late_span_age",
            "Time between the decision on a trace and the arrival of a late span, in seconds",
            new double[] {1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600},
            "processor",
            id);
    tickMillis =
        metrics.histogram(
            PREFIX + "sampling_decision_timer_latency",
            "Latency (in milliseconds) of each run of the sampling decision timer",
            new double[] {1, 2, 5, 10, 25, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1000, 2000},
            "processor",
            id);
    tooLarge =
        metrics.counter(
            PREFIX + "traces_dropped_too_large",
            "Count of traces not sampled for passing maximum_trace_size_bytes",
            "processor",
            id);
    String earlyHelp =
        "Traces decided before they were due, with the spans they had, to stay bound";
    earlyByTraces =
        metrics.counter(
            "sluice_processor_tail_sampling_traces_decided_early",
            earlyHelp,
            "processor",
            id,
            "bound",
            "num_traces");
    earlyByBytes =
        metrics.counter(
            "sluice_processor_tail_sampling_traces_decided_early",
            earlyHelp,
            "processor",
            id,
            "bound",
            "max_bytes");
    earlyAtShutdown =
        metrics.counter(
            "sluice_processor_tail_sampling_traces_decided_early",
            earlyHelp,
            "processor",
            id,
            "bound",
            "shutdown");
    dropped =
        metrics.counter(
            "otelcol_processor_dropped_spans",
            "Number of units dropped by the processor",
            "processor",
            id);
    metrics.gauge(
        PREFIX + "sampling_traces_on_memory",
        "Number of traces currently held (waiting, or remembered as decided)",
        () -> heldTraces,
        "processor",
        id);
    metrics.gauge(
        "sluice_processor_tail_sampling_traces_waiting",
        "Traces waiting for a decision",
        () -> waitingTraces,
        "processor",
        id);
    metrics.gauge(
        "sluice_processor_tail_sampling_bytes_waiting",
        "Bytes of spans waiting for a decision",
        () -> heldBytes,
        "processor",
        id);
  }

  void incoming(long units) {
    processor.incoming(units);
  }

  void outgoing(long units) {
    processor.outgoing(units);
  }

  void newTrace() {
    newTraces.increment();
  }

  void releasedFromCache(boolean sampled, long spanCount) {
    (sampled ? cachedSampled : cachedNotSampled).add(spanCount);
  }

  void lateSpans(long spanCount, long sinceDecisionNanos) {
    double seconds = TimeUnit.NANOSECONDS.toSeconds(Math.max(0, sinceDecisionNanos));
    for (long i = 0; i < spanCount; i++) {
      lateSpanAge.record(seconds);
    }
  }

  void tooLarge() {
    tooLarge.increment();
  }

  void decidedEarly(String bound) {
    switch (bound) {
      case "num_traces" -> earlyByTraces.increment();
      case "max_bytes" -> earlyByBytes.increment();
      default -> earlyAtShutdown.increment();
    }
  }

  void policy(int index, Decision decision, TraceData trace, long nanos) {
    executions[index].increment();
    executionMicros[index].add(TimeUnit.NANOSECONDS.toMicros(nanos));
    int d = column(decision);
    if (d < 0) {
      evaluationErrors.increment();
      return;
    }
    traces[index][d].increment();
    spans[index][d].add(trace.spanCount);
    bytes[index][d].add(trace.bytes);
  }

  void decided(Decision decision, TraceData trace) {
    global[column(decision)].increment();
  }

  void tick(long nanos) {
    tickMillis.record(TimeUnit.NANOSECONDS.toMillis(nanos));
  }

  void dropped(long units) {
    dropped.add(units);
  }

  void held(long traces, long waiting, long bytes) {
    heldTraces = traces;
    waitingTraces = waiting;
    heldBytes = bytes;
  }

  private static int column(Decision decision) {
    return switch (decision) {
      case SAMPLED, INVERT_SAMPLED -> 0;
      case NOT_SAMPLED, INVERT_NOT_SAMPLED -> 1;
      case DROPPED -> 2;
      case ERROR -> -1;
    };
  }
}
