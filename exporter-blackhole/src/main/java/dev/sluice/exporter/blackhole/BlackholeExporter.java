package dev.sluice.exporter.blackhole;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpMarshaler;

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
