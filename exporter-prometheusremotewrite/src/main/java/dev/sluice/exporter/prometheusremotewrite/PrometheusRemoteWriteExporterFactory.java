package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterFactory;
import dev.sluice.pdata.Signal;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** The {@code prometheusremotewrite} exporter type: metrics to a Prometheus remote-write URL. */
public final class PrometheusRemoteWriteExporterFactory
    implements ExporterFactory<PrometheusRemoteWriteConfig> {
  @Override
  public String type() {
    return "prometheusremotewrite";
  }

  /** The Collector's newer name, for which it keeps {@code prometheusremotewrite} as an alias. */
  @Override
  public List<String> aliases() {
    return List.of("prometheus_remote_write");
  }

  @Override
  public Class<PrometheusRemoteWriteConfig> configType() {
    return PrometheusRemoteWriteConfig.class;
  }

  @Override
  public PrometheusRemoteWriteConfig defaultConfig() {
    return PrometheusRemoteWriteConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return EnumSet.of(Signal.METRICS);
  }

  @Override
  public Exporter create(ComponentSettings settings, PrometheusRemoteWriteConfig config) {
    return new PrometheusRemoteWriteExporter(settings, config);
  }
}
