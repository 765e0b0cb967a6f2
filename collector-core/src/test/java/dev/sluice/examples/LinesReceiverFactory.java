package dev.sluice.examples;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Receiver;
import dev.sluice.component.ReceiverFactory;
import dev.sluice.component.RequestConsumer;
import dev.sluice.pdata.Signal;
import java.util.Map;
import java.util.Set;

/** The {@code lines} example receiver type: traces only. */
public final class LinesReceiverFactory implements ReceiverFactory<LinesReceiverConfig> {
  @Override
  public String type() {
    return "lines";
  }

  @Override
  public Class<LinesReceiverConfig> configType() {
    return LinesReceiverConfig.class;
  }

  @Override
  public LinesReceiverConfig defaultConfig() {
    return LinesReceiverConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return Set.of(Signal.TRACES);
  }

  @Override
  public Receiver create(
      ComponentSettings settings,
      LinesReceiverConfig config,
      Map<Signal, RequestConsumer> consumers) {
    return new LinesReceiver(settings, config, consumers.get(Signal.TRACES));
  }
}
