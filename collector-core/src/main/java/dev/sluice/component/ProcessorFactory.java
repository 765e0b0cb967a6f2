package dev.sluice.component;

import dev.sluice.pdata.Signal;
import java.util.EnumSet;
import java.util.Set;

/** Makes processors of one type; one instance per pipeline that lists it. */
public interface ProcessorFactory<C extends ComponentConfig> extends ComponentFactory<C> {
  @Override
  default ComponentKind kind() {
    return ComponentKind.PROCESSOR;
  }

  /**
   * The signals this type can process; a pipeline of another signal that lists it is a
   * configuration error. All three unless the type says otherwise.
   */
  default Set<Signal> signals() {
    return EnumSet.allOf(Signal.class);
  }

  /** Makes a processor for a pipeline of {@code signal} that passes batches on to {@code next}. */
  Processor create(ComponentSettings settings, C config, Signal signal, BatchConsumer next);
}
