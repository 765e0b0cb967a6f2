package dev.sluice.exporter.otlp;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterFactory;
import dev.sluice.pdata.Signal;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** The {@code otlp} exporter type (OTLP over gRPC), also known as {@code otlp_grpc}. */
public final class OtlpExporterFactory implements ExporterFactory<OtlpExporterConfig> {
  @Override
  public String type() {
    return "otlp";
  }

  @Override
  public List<String> aliases() {
    return List.of("otlp_grpc");
  }

  @Override
  public Class<OtlpExporterConfig> configType() {
    return OtlpExporterConfig.class;
  }

  @Override
  public OtlpExporterConfig defaultConfig() {
    return OtlpExporterConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return EnumSet.allOf(Signal.class);
  }

  @Override
  public Exporter create(ComponentSettings settings, OtlpExporterConfig config) {
    return new OtlpGrpcExporter(settings, config);
  }
}
