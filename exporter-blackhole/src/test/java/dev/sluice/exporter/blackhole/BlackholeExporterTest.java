package dev.sluice.exporter.blackhole;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.testkit.MetricsText;
import dev.sluice.testkit.SequencedSpans;
import org.junit.jupiter.api.Test;

class BlackholeExporterTest {
  @Test
  void countsUnitsAndMarshaledBytesAndSucceeds() throws Exception {
    MetricRegistry metrics = new MetricRegistry();
    BlackholeExporter exporter =
        (BlackholeExporter)
            new BlackholeExporterFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("nop/1"), ComponentKind.EXPORTER, metrics),
                    new BlackholeConfig());
    OtlpIndex request = SequencedSpans.indexed("svc", 0, 30);

    ExportResult first = exporter.export(Batch.of(request), Long.MAX_VALUE);
    exporter.export(Batch.of(request), Long.MAX_VALUE);

    assertThat(first).isEqualTo(ExportResult.SUCCESS);
    assertThat(exporter.units()).isEqualTo(60);
    assertThat(exporter.bytes()).isEqualTo(2L * request.sourceLength());
    assertThat(MetricsText.of(metrics))
        .contains("sluice_exporter_blackhole_items_total{exporter=\"nop/1\"} 60");
  }
}
