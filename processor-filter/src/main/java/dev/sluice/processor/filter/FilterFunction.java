package dev.sluice.processor.filter;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;

/**
 * The {@code filter} processor over one signal: drops the items that match any condition of their
 * context, in the Collector's order (spans, then the events of the spans kept; metrics, then the
 * data points of the metrics kept). Dropped items leave their slices; blocks left empty disappear;
 * a metric left without data points is dropped; a span that loses events is re-encoded without
 * them.
 *
 * <p>Under {@code error_mode: propagate} a condition that fails for an item drops the whole batch
 * (the Collector returns the error, so that data goes no further either). Re-applying the function
 * to a batch it has processed drops nothing more.
 *
 * <p>Thread-safe: each thread that applies it gets its own compiled conditions.
 */
final class FilterFunction implements BatchFunction<FilterConfig> {
  private final Signal signal;
  private final MetricRegistry.Counter filtered;
  private final ThreadLocal<FilterRun> runs;

  FilterFunction(ComponentSettings settings, Signal signal, FilterConditions conditions) {
    this.signal = signal;
    String id = settings.id().toString();
    MetricRegistry metrics = settings.metrics();
    this.filtered =
        metrics.counter(
            "otelcol_processor_filter_" + filteredName(signal) + "_filtered",
            "Number of " + filteredName(signal) + " dropped by the filter processor",
            "processor",
            id);
    Failures failures =
        new Failures(
            conditions.errorMode(),
            metrics.counter(
                "sluice_processor_filter_condition_errors",
                "Number of times a filter condition failed to evaluate for an item",
                "processor",
                id),
            settings.logger());
    this.runs = ThreadLocal.withInitial(() -> new FilterRun(conditions, failures));
  }

  private static String filteredName(Signal signal) {
    return switch (signal) {
      case TRACES -> "spans";
      case LOGS -> "logs";
      default -> "datapoints";
    };
  }

  @Override
  public Admission apply(Batch batch, FilterConfig config) {
    FilterRun run = runs.get();
    run.start();
    long before = batch.unitCount();
    try {
      switch (signal) {
        case TRACES -> filterTraces(batch, run);
        case LOGS -> {
          if (!run.logRecord.isEmpty()) {
            batch.visit(run.logRecordVisitor);
          }
        }
        case METRICS -> filterMetrics(batch, run);
        default -> {}
      }
    } finally {
      run.finish();
    }
    if (run.failed()) {
      batch.clear();
      return Admission.ACCEPTED;
    }
    filtered.add(before - batch.unitCount());
    return Admission.ACCEPTED;
  }

  private static void filterTraces(Batch batch, FilterRun run) {
    if (!run.span.isEmpty() || !run.spanEvent.isEmpty()) {
      batch.visit(run.spanVisitor);
    }
  }

  private static void filterMetrics(Batch batch, FilterRun run) {
    if (!run.metric.isEmpty()) {
      batch.visitMetrics(run.metricVisitor);
    }
    if (!run.dataPoint.isEmpty() && !run.failed()) {
      batch.visit(run.dataPointVisitor);
      batch.visitMetrics(run.emptyMetricVisitor);
    }
  }
}
