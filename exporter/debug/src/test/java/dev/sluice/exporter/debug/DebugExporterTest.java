package dev.sluice.exporter.debug;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.json.OtlpJsonDecoder;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.Signal;
import dev.sluice.testkit.SequencedSpans;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DebugExporterTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  private String export(DebugConfig.Verbosity verbosity, int spans) {
    DebugExporter exporter =
        new DebugExporter(
            new ComponentSettings(
                ComponentId.parse("debug"), ComponentKind.EXPORTER, new MetricRegistry()),
            new DebugConfig(verbosity, 10, 1, false),
            new PrintStream(out, true, StandardCharsets.UTF_8));
    exporter.export(Batch.of(SequencedSpans.indexed("svc", 0, spans)), Long.MAX_VALUE);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void basicWritesOneLineOfCountsPerBatch() {
    assertThat(export(DebugConfig.Verbosity.BASIC, 3))
        .isEqualTo("Traces: 1 resource blocks, 1 scope blocks, 3 spans" + System.lineSeparator());
  }

  @Test
  void normalAddsALineOfJsonPerItem() {
    String[] lines = export(DebugConfig.Verbosity.NORMAL, 3).split(System.lineSeparator());

    assertThat(lines).hasSize(4);
    assertThat(lines[1]).startsWith("{").contains("\"name\":\"0\"").contains("\"kind\":2");
    assertThat(lines[3]).contains("\"name\":\"2\"");
  }

  @Test
  void detailedWritesTheBatchAsOtlpJson() throws Exception {
    String text = export(DebugConfig.Verbosity.DETAILED, 2);
    String json = text.substring(text.indexOf('{'));

    byte[] decoded =
        new OtlpJsonDecoder().decode(Signal.TRACES, json.getBytes(StandardCharsets.UTF_8));

    assertThat(ExportTraceServiceRequest.parseFrom(decoded))
        .isEqualTo(SequencedSpans.request("svc", 0, 2));
  }

  @Test
  void samplesAfterTheInitialOutputsOfEachSecond() {
    OutputSampler sampler = new OutputSampler(2, 3);
    long start = 1_000;
    int taken = 0;
    for (int i = 0; i < 11; i++) {
      taken += sampler.take(start + i) ? 1 : 0;
    }
    assertThat(taken).isEqualTo(2 + 3);
    assertThat(sampler.take(start + TimeUnit.SECONDS.toNanos(1))).isTrue();
  }
}
