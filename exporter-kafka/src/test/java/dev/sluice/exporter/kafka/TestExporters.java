package dev.sluice.exporter.kafka;

import com.google.protobuf.Message;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;

/** Kafka exporters made as the collector makes them: configuration bound from YAML, the factory. */
final class TestExporters {
  private TestExporters() {}

  static KafkaExporterConfig config(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(yaml, "kafka.yaml", KafkaExporterConfig.class, KafkaExporterConfig.DEFAULT);
  }

  /** A started exporter to {@code bootstrap}, with the rest of its keys from {@code yaml}. */
  static KafkaExporter start(String bootstrap, String yaml) throws Exception {
    KafkaExporter exporter =
        (KafkaExporter)
            new KafkaExporterFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("kafka"), ComponentKind.EXPORTER, new MetricRegistry()),
                    config("brokers: [" + bootstrap + "]\n" + yaml));
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

  static long deadline(long seconds) {
    return System.nanoTime() + seconds * 1_000_000_000L;
  }
}
