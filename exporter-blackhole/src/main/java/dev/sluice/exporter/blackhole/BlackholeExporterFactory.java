package dev.sluice.exporter.blackhole;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterFactory;
import dev.sluice.pdata.Signal;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** The {@code blackhole} exporter type, also known as {@code nop}. */
public final class BlackholeExporterFactory implements ExporterFactory<BlackholeConfig> {
  @Override
  public String type() {
    return "blackhole";
  }

  @Override
  public List<String> aliases() {
    return List.of("nop");
  }

  @Override
  public Class<BlackholeConfig> configType() {
    return BlackholeConfig.class;
  }

  @Override
  public BlackholeConfig defaultConfig() {
    return new BlackholeConfig();
  }

  @Override
  public Set<Signal> signals() {
    return EnumSet.allOf(Signal.class);
  }

  @Override
  public Exporter create(ComponentSettings settings, BlackholeConfig config) {
    return new BlackholeExporter(settings);
  }
}
