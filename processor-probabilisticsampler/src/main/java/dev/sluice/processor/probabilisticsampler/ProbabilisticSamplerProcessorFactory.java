package dev.sluice.processor.probabilisticsampler;

import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.FunctionProcessorFactory;
import dev.sluice.pdata.Signal;
import java.util.EnumSet;
import java.util.Set;

/**
 * The {@code probabilistic_sampler} processor type: traces and logs, as in the OpenTelemetry
 * Collector; a metrics pipeline that lists it is a configuration error.
 */
public final class ProbabilisticSamplerProcessorFactory
    implements FunctionProcessorFactory<ProbabilisticSamplerConfig> {
  @Override
  public String type() {
    return "probabilistic_sampler";
  }

  @Override
  public Class<ProbabilisticSamplerConfig> configType() {
    return ProbabilisticSamplerConfig.class;
  }

  @Override
  public ProbabilisticSamplerConfig defaultConfig() {
    return ProbabilisticSamplerConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return EnumSet.of(Signal.TRACES, Signal.LOGS);
  }

  @Override
  public BatchFunction<ProbabilisticSamplerConfig> createFunction(
      ComponentSettings settings, ProbabilisticSamplerConfig config, Signal signal) {
    return new SamplerFunction(settings, config, signal);
  }
}
