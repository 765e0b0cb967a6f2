package dev.sluice.processor.tailsampling;

import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.ProcessorFactory;
import dev.sluice.pdata.Signal;
import java.util.Set;

/** The {@code tail_sampling} processor type: traces only. */
public final class TailSamplingProcessorFactory implements ProcessorFactory<TailSamplingConfig> {
  @Override
  public String type() {
    return "tail_sampling";
  }

  @Override
  public Class<TailSamplingConfig> configType() {
    return TailSamplingConfig.class;
  }

  @Override
  public TailSamplingConfig defaultConfig() {
    return TailSamplingConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return Set.of(Signal.TRACES);
  }

  @Override
  public Processor create(
      ComponentSettings settings, TailSamplingConfig config, Signal signal, BatchConsumer next) {
    return new TailSamplingProcessor(settings, config, next);
  }
}
