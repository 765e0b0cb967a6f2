package dev.sluice.receiver.otlp;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Receiver;
import dev.sluice.component.ReceiverFactory;
import dev.sluice.component.RequestConsumer;
import dev.sluice.pdata.Signal;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/** The {@code otlp} receiver type. */
public final class OtlpReceiverFactory implements ReceiverFactory<OtlpReceiverConfig> {
  @Override
  public String type() {
    return "otlp";
  }

  @Override
  public Class<OtlpReceiverConfig> configType() {
    return OtlpReceiverConfig.class;
  }

  @Override
  public OtlpReceiverConfig defaultConfig() {
    return OtlpReceiverConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return EnumSet.allOf(Signal.class);
  }

  @Override
  public Receiver create(
      ComponentSettings settings,
      OtlpReceiverConfig config,
      Map<Signal, RequestConsumer> consumers) {
    return new OtlpReceiver(settings, config, consumers);
  }
}
