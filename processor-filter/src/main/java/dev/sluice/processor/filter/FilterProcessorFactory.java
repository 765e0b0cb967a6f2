package dev.sluice.processor.filter;

import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.FunctionProcessorFactory;
import dev.sluice.ottl.OttlContext;
import dev.sluice.pdata.Signal;

/** The {@code filter} processor type. */
public final class FilterProcessorFactory implements FunctionProcessorFactory<FilterConfig> {
  @Override
  public String type() {
    return "filter";
  }

  @Override
  public Class<FilterConfig> configType() {
    return FilterConfig.class;
  }

  @Override
  public FilterConfig defaultConfig() {
    return FilterConfig.DEFAULT;
  }

  @Override
  public BatchFunction<FilterConfig> createFunction(
      ComponentSettings settings, FilterConfig config, Signal signal) {
    ConfigProblems problems = new ConfigProblems();
    FilterConditions conditions =
        new FilterConditions(
            config.errorMode(),
            FilterConfig.compile("traces.span", config.traces().span(), OttlContext.SPAN, problems),
            FilterConfig.compile(
                "traces.spanevent", config.traces().spanevent(), OttlContext.SPANEVENT, problems),
            FilterConfig.compile(
                "metrics.metric", config.metrics().metric(), OttlContext.METRIC, problems),
            FilterConfig.compile(
                "metrics.datapoint", config.metrics().datapoint(), OttlContext.DATAPOINT, problems),
            FilterConfig.compile(
                "logs.log_record", config.logs().logRecord(), OttlContext.LOG, problems));
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("filter configuration not validated: " + problems.all());
    }
    return new FilterFunction(settings, signal, conditions);
  }
}
