package dev.sluice.component;

import dev.sluice.pdata.otlp.Signal;

/** Makes processors of one type; one instance per pipeline that lists it. */
public interface ProcessorFactory<C extends ComponentConfig> extends ComponentFactory<C> {
  @Override
  default ComponentKind kind() {
    return ComponentKind.PROCESSOR;
  }

  /** Makes a processor for a pipeline of {@code signal} that passes batches on to {@code next}. */
  Processor create(ComponentSettings settings, C config, Signal signal, BatchConsumer next);
}
