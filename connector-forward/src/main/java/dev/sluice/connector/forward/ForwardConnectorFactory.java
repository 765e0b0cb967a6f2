package dev.sluice.connector.forward;

import dev.sluice.component.Admission;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorFactory;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;

/**
 * The {@code forward} connector: hands the batches that reach the end of the pipelines listing it
 * to the pipelines of the same signal that list it among their receivers, as they are. Nothing is
 * copied; a full pipeline downstream makes the pipelines feeding it refuse.
 */
public final class ForwardConnectorFactory implements ConnectorFactory<ForwardConfig> {
  @Override
  public String type() {
    return "forward";
  }

  @Override
  public Class<ForwardConfig> configType() {
    return ForwardConfig.class;
  }

  @Override
  public ForwardConfig defaultConfig() {
    return new ForwardConfig();
  }

  @Override
  public boolean supports(Signal from, Signal to) {
    return from == to;
  }

  /** Batches go on as slices of the requests they came in: durable pipelines may follow. */
  @Override
  public boolean passesThrough() {
    return true;
  }

  @Override
  public Connector create(
      ComponentSettings settings,
      ForwardConfig config,
      Signal from,
      Signal to,
      ConnectorOutput output) {
    if (from != to) {
      throw new IllegalArgumentException(
          "forward joins pipelines of one signal, not " + from + " to " + to);
    }
    return new Forward(output);
  }

  /** Passes each batch on. */
  private record Forward(ConnectorOutput output) implements Connector {
    @Override
    public Admission consume(Batch batch) {
      return output.consume(batch);
    }
  }
}
