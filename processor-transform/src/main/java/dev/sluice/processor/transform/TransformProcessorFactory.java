package dev.sluice.processor.transform;

import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.FunctionProcessorFactory;
import dev.sluice.pdata.Signal;
import java.util.List;

/** The {@code transform} processor type. */
public final class TransformProcessorFactory implements FunctionProcessorFactory<TransformConfig> {
  @Override
  public String type() {
    return "transform";
  }

  @Override
  public Class<TransformConfig> configType() {
    return TransformConfig.class;
  }

  @Override
  public TransformConfig defaultConfig() {
    return TransformConfig.DEFAULT;
  }

  @Override
  public BatchFunction<TransformConfig> createFunction(
      ComponentSettings settings, TransformConfig config, Signal signal) {
    ConfigProblems problems = new ConfigProblems();
    List<StatementGroup> groups =
        switch (signal) {
          case TRACES ->
              Groups.compile(Groups.TRACES, config.traceStatements(), config.errorMode(), problems);
          case METRICS ->
              Groups.compile(
                  Groups.METRICS, config.metricStatements(), config.errorMode(), problems);
          case LOGS ->
              Groups.compile(Groups.LOGS, config.logStatements(), config.errorMode(), problems);
        };
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "transform configuration not validated: " + problems.all());
    }
    return new TransformFunction(settings, groups);
  }
}
