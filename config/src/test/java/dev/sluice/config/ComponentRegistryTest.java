package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ComponentFactory;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.ProcessorFactory;
import dev.sluice.config.fixtures.DebugExporterFactory;
import dev.sluice.config.fixtures.OtlpExporterFactory;
import dev.sluice.config.fixtures.OtlpReceiverFactory;
import dev.sluice.pdata.Signal;
import dev.sluice.processor.batch.BatchProcessorFactory;
import dev.sluice.processor.memorylimiter.MemoryLimiterProcessorFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

class ComponentRegistryTest {
  /** A processor whose config type is not a record. */
  static final class NotARecord implements ComponentConfig {}

  static final class BadProcessorFactory implements ProcessorFactory<NotARecord> {
    @Override
    public String type() {
      return "bad";
    }

    @Override
    public Class<NotARecord> configType() {
      return NotARecord.class;
    }

    @Override
    public NotARecord defaultConfig() {
      return new NotARecord();
    }

    @Override
    public Processor create(
        ComponentSettings settings, NotARecord config, Signal signal, BatchConsumer next) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void findsInstalledFactoriesWithTheServiceLoader() {
    ComponentRegistry registry = ComponentRegistry.installed();
    assertThat(registry.factories(ComponentKind.PROCESSOR))
        .hasAtLeastOneElementOfType(BatchProcessorFactory.class)
        .hasAtLeastOneElementOfType(MemoryLimiterProcessorFactory.class);
    assertThat(registry.find(ComponentKind.RECEIVER, "otlp"))
        .containsInstanceOf(OtlpReceiverFactory.class);
    assertThat(registry.find(ComponentKind.EXPORTER, "otlp"))
        .containsInstanceOf(OtlpExporterFactory.class);
  }

  @Test
  void looksUpByKindAndByTypeOrAlias() {
    ComponentRegistry registry =
        ComponentRegistry.of(List.of(new OtlpReceiverFactory(), new OtlpExporterFactory()));
    assertThat(registry.find(ComponentKind.EXPORTER, "otlp_grpc"))
        .containsInstanceOf(OtlpExporterFactory.class);
    assertThat(registry.find(ComponentKind.RECEIVER, "otlp_grpc")).isEmpty();
    assertThat(registry.find(ComponentKind.PROCESSOR, "otlp")).isEmpty();
  }

  @Test
  void rejectsTwoFactoriesForOneType() {
    assertThatThrownBy(
            () ->
                ComponentRegistry.of(
                    List.<ComponentFactory<?>>of(
                        new OtlpExporterFactory(), new OtlpExporterFactory())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("both provide exporter type \"otlp\"");
  }

  @Test
  void rejectsAFactoryWhoseConfigIsNotARecord() {
    assertThatThrownBy(() -> ComponentRegistry.of(List.of(new BadProcessorFactory())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the config type must be a record");
  }

  @Test
  void aLoaderWithAnInjectedRegistryKnowsOnlyItsFactories() {
    ConfigLoader loader =
        new ConfigLoader()
            .withRegistry(
                ComponentRegistry.of(
                    List.of(new OtlpReceiverFactory(), new DebugExporterFactory())))
            .withEnvironment(name -> null);
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                loader.load(
                    """
                    receivers: {otlp: {protocols: {http: }}}
                    processors: {batch: }
                    exporters: {debug: }
                    service:
                      pipelines:
                        logs: {receivers: [otlp], processors: [batch], exporters: [debug]}
                    """,
                    "inline"));
    assertThat(e.getMessage())
        .isEqualTo(
            "inline:2:14: processors.batch: processor type \"batch\" is not available in this"
                + " build");
  }
}
