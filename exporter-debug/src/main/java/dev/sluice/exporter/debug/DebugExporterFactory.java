package dev.sluice.exporter.debug;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterFactory;
import dev.sluice.pdata.Signal;
import java.util.EnumSet;
import java.util.Set;

/** The {@code debug} exporter type. */
public final class DebugExporterFactory implements ExporterFactory<DebugConfig> {
  @Override
  public String type() {
    return "debug";
  }

  @Override
  public Class<DebugConfig> configType() {
    return DebugConfig.class;
  }

  @Override
  public DebugConfig defaultConfig() {
    return DebugConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return EnumSet.allOf(Signal.class);
  }

  @Override
  public Exporter create(ComponentSettings settings, DebugConfig config) {
    return new DebugExporter(settings, config, System.out);
  }
}
