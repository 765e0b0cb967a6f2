package dev.sluice.exporter.file;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterFactory;
import dev.sluice.pdata.Signal;
import java.time.Clock;
import java.util.EnumSet;
import java.util.Set;

/** The {@code file} exporter type. */
public final class FileExporterFactory implements ExporterFactory<FileExporterConfig> {
  @Override
  public String type() {
    return "file";
  }

  @Override
  public Class<FileExporterConfig> configType() {
    return FileExporterConfig.class;
  }

  @Override
  public FileExporterConfig defaultConfig() {
    return FileExporterConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return EnumSet.allOf(Signal.class);
  }

  @Override
  public Exporter create(ComponentSettings settings, FileExporterConfig config) {
    return new FileExporter(settings, config, Clock.systemUTC());
  }
}
