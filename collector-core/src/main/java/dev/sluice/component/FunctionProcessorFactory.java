package dev.sluice.component;

import dev.sluice.pdata.Signal;

/**
 * A processor type written as a {@link BatchFunction}: the factory makes the function, and gets a
 * {@link FunctionProcessor} around it, with the processor metrics, for each pipeline.
 */
public interface FunctionProcessorFactory<C extends ComponentConfig> extends ProcessorFactory<C> {
  /** Makes the function for one pipeline of {@code signal}; it may keep state of its own. */
  BatchFunction<C> createFunction(ComponentSettings settings, C config, Signal signal);

  @Override
  default Processor create(
      ComponentSettings settings, C config, Signal signal, BatchConsumer next) {
    return new FunctionProcessor<>(
        settings, config, signal, createFunction(settings, config, signal), next);
  }
}
