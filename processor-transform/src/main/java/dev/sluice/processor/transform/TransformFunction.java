package dev.sluice.processor.transform;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import java.util.List;

/**
 * The {@code transform} processor over one signal: runs its groups of statements over the batch,
 * re-encoding the items, resources and scopes they change (everything else stays as received).
 *
 * <p>Under {@code error_mode: propagate} a statement that fails for an item drops the whole batch
 * (the Collector returns the error, so that data goes no further either); under {@code ignore} and
 * {@code silent} the item goes on with the next statement.
 *
 * <p>Thread-safe: each thread that applies it gets its own compiled statements.
 */
final class TransformFunction implements BatchFunction<TransformConfig> {
  private final ThreadLocal<TransformRun> runs;
  private final MetricRegistry.Counter dropped;

  TransformFunction(ComponentSettings settings, List<StatementGroup> groups) {
    String id = settings.id().toString();
    MetricRegistry metrics = settings.metrics();
    Failures failures =
        new Failures(
            metrics.counter(
                "sluice_processor_transform_statement_errors",
                "Number of times a transform statement or condition failed for an item",
                "processor",
                id),
            settings.logger());
    this.dropped =
        metrics.counter(
            "sluice_processor_transform_dropped_units",
            "Units dropped with their batch because a statement failed under error_mode propagate",
            "processor",
            id);
    List<StatementGroup> copy = List.copyOf(groups);
    this.runs = ThreadLocal.withInitial(() -> new TransformRun(copy, failures));
  }

  @Override
  public Admission apply(Batch batch, TransformConfig config) {
    TransformRun run = runs.get();
    if (run.isEmpty()) {
      return Admission.ACCEPTED;
    }
    if (!run.apply(batch)) {
      dropped.add(batch.unitCount());
      batch.clear();
    }
    return Admission.ACCEPTED;
  }
}
