package dev.sluice.exporter.blackhole;

import dev.sluice.core.component.ComponentSettings;
import dev.sluice.core.component.ExportResult;
import dev.sluice.core.component.Exporter;
import dev.sluice.core.otlp.Batch;
import dev.sluice.core.otlp.MarshalContext;
import dev.sluice.core.otlp.OtlpMarshaler;
import dev.sluice.core.telemetry.MetricRegistry;

/**
 * Marshals each batch as a real exporter would, counts its units and bytes, and keeps nothing: the
 * sink of benchmarks, where it measures everything but the network.
 */
public final class BlackholeExporter implements Exporter {
  private final ThreadLocal<MarshalContext> contexts = ThreadLocal.withInitial(MarshalContext::new);
  private final MetricRegistry.Counter units;
  private final MetricRegistry.Counter bytes;

  BlackholeExporter(ComponentSettings settings) {
    String id = settings.id().toString();
    units =
        settings
            .metrics()
            .counter(
                "sluice_exporter_blackhole_items",
                "Spans, data points and log records discarded",
                "exporter",
                id);
    bytes =
        settings
            .metrics()
            .counter(
                "sluice_exporter_blackhole_bytes",
                "Bytes of marshaled requests discarded",
                "exporter",
                id);
  }

  @Override
  public ExportResult export(Batch batch, long deadlineNanos) {
    bytes.add(OtlpMarshaler.marshal(batch, contexts.get()));
    units.add(batch.unitCount());
    return ExportResult.SUCCESS;
  }

  public long units() {
    return units.get();
  }

  public long bytes() {
    return bytes.get();
  }
}
