package dev.sluice.exporter.kafka;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterFactory;
import dev.sluice.pdata.Signal;
import java.util.EnumSet;
import java.util.Set;

/** The {@code kafka} exporter type. */
public final class KafkaExporterFactory implements ExporterFactory<KafkaExporterConfig> {
  @Override
  public String type() {
    return "kafka";
  }

  @Override
  public Class<KafkaExporterConfig> configType() {
    return KafkaExporterConfig.class;
  }

  @Override
  public KafkaExporterConfig defaultConfig() {
    return KafkaExporterConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return EnumSet.allOf(Signal.class);
  }

  @Override
  public Exporter create(ComponentSettings settings, KafkaExporterConfig config) {
    return new KafkaExporter(settings, config);
  }
}
