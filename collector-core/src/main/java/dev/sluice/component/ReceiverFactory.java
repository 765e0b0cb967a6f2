package dev.sluice.component;

import dev.sluice.pdata.Signal;
import java.util.Map;
import java.util.Set;

/** Makes receivers of one type. */
public interface ReceiverFactory<C extends ComponentConfig> extends ComponentFactory<C> {
  @Override
  default ComponentKind kind() {
    return ComponentKind.RECEIVER;
  }

  /** The signals this type can receive. */
  Set<Signal> signals();

  /**
   * Makes a receiver that hands each signal's requests to {@code consumers}; signals that no
   * pipeline takes from this receiver are absent from the map.
   */
  Receiver create(ComponentSettings settings, C config, Map<Signal, RequestConsumer> consumers);
}
