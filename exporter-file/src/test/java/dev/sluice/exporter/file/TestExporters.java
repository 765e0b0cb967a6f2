package dev.sluice.exporter.file;

import com.google.protobuf.Message;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;

/** File exporters made as the collector makes them: configuration bound from YAML, the factory. */
final class TestExporters {
  private TestExporters() {}

  static FileExporterConfig config(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(yaml, "file.yaml", FileExporterConfig.class, FileExporterConfig.DEFAULT);
  }

  /** A started exporter whose timers run on {@code scheduler}. */
  static FileExporter start(String yaml, Scheduler scheduler) throws Exception {
    FileExporter exporter =
        (FileExporter)
            new FileExporterFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("file"),
                        ComponentKind.EXPORTER,
                        new MetricRegistry(),
                        scheduler),
                    config(yaml));
    exporter.start();
    return exporter;
  }

  static Batch batch(Signal signal, Message request) {
    try {
      return Batch.of(new OtlpIndexer().index(signal, request.toByteArray()));
    } catch (MalformedOtlpException e) {
      throw new AssertionError(e);
    }
  }

  static Signal signalOf(Message request) {
    String name = request.getDescriptorForType().getName();
    return switch (name) {
      case "ExportTraceServiceRequest" -> Signal.TRACES;
      case "ExportMetricsServiceRequest" -> Signal.METRICS;
      case "ExportLogsServiceRequest" -> Signal.LOGS;
      default -> throw new IllegalArgumentException(name);
    };
  }
}
