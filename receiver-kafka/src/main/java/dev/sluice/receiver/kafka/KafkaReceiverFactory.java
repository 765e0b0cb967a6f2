package dev.sluice.receiver.kafka;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Receiver;
import dev.sluice.component.ReceiverFactory;
import dev.sluice.component.RequestConsumer;
import dev.sluice.pdata.Signal;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/** The {@code kafka} receiver type. */
public final class KafkaReceiverFactory implements ReceiverFactory<KafkaReceiverConfig> {
  @Override
  public String type() {
    return "kafka";
  }

  @Override
  public Class<KafkaReceiverConfig> configType() {
    return KafkaReceiverConfig.class;
  }

  @Override
  public KafkaReceiverConfig defaultConfig() {
    return KafkaReceiverConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return EnumSet.allOf(Signal.class);
  }

  @Override
  public Receiver create(
      ComponentSettings settings,
      KafkaReceiverConfig config,
      Map<Signal, RequestConsumer> consumers) {
    return new KafkaReceiver(settings, config, consumers);
  }
}
