package dev.sluice.exporter.otlp;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterFactory;
import dev.sluice.pdata.Signal;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** The {@code otlphttp} exporter type (OTLP over HTTP), also known as {@code otlp_http}. */
public final class OtlpHttpExporterFactory implements ExporterFactory<OtlpHttpExporterConfig> {
  @Override
  public String type() {
    return "otlphttp";
  }

  @Override
  public List<String> aliases() {
    return List.of("otlp_http");
  }

  @Override
  public Class<OtlpHttpExporterConfig> configType() {
    return OtlpHttpExporterConfig.class;
  }

  @Override
  public OtlpHttpExporterConfig defaultConfig() {
    return OtlpHttpExporterConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return EnumSet.allOf(Signal.class);
  }

  @Override
  public Exporter create(ComponentSettings settings, OtlpHttpExporterConfig config) {
    return new OtlpHttpExporter(settings, config);
  }
}
