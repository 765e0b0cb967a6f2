package dev.sluice.bench.naive;

import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.ProcessorFactory;
import dev.sluice.pdata.Signal;

/**
 * The bench-only {@code naive_protobuf} processor type, found through {@code META-INF/services}
 * when {@code sluice-bench.jar} is on the collector's class path.
 */
public final class NaiveProtobufProcessorFactory implements ProcessorFactory<NaiveProtobufConfig> {
  @Override
  public String type() {
    return "naive_protobuf";
  }

  @Override
  public Class<NaiveProtobufConfig> configType() {
    return NaiveProtobufConfig.class;
  }

  @Override
  public NaiveProtobufConfig defaultConfig() {
    return new NaiveProtobufConfig();
  }

  @Override
  public Processor create(
      ComponentSettings settings, NaiveProtobufConfig config, Signal signal, BatchConsumer next) {
    return new NaiveProtobufProcessor(signal, next);
  }
}
