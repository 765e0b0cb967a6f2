package dev.sluice.examples;

import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.FunctionProcessorFactory;
import dev.sluice.pdata.Signal;
import java.util.Set;

/** The {@code span_rename} example processor type: traces only. */
public final class SpanRenameProcessorFactory
    implements FunctionProcessorFactory<SpanRenameConfig> {
  @Override
  public String type() {
    return "span_rename";
  }

  @Override
  public Class<SpanRenameConfig> configType() {
    return SpanRenameConfig.class;
  }

  @Override
  public SpanRenameConfig defaultConfig() {
    return SpanRenameConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return Set.of(Signal.TRACES);
  }

  @Override
  public BatchFunction<SpanRenameConfig> createFunction(
      ComponentSettings settings, SpanRenameConfig config, Signal signal) {
    return new SpanRenameProcessor(config);
  }
}
