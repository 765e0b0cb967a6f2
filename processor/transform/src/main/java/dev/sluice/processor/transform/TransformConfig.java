package dev.sluice.processor.transform;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.ottl.ErrorMode;
import java.util.List;

/**
 * The {@code transform} processor's configuration, with the OpenTelemetry Collector's keys: OTTL
 * statements per signal, each list holding statements (whose context follows from their paths) or
 * groups ({@code context}, {@code conditions}, {@code statements}, {@code error_mode}). Every
 * statement and condition is parsed and compiled when the configuration is validated, so an error
 * is reported with its key path and its line and column in the statement before anything starts.
 *
 * @param errorMode what a statement that fails for an item does: {@code propagate} (default),
 *     {@code ignore} or {@code silent}; a group's own {@code error_mode} overrides it
 * @param traceStatements statements and groups over spans, their resources and scopes
 * @param metricStatements statements and groups over metrics, data points, resources and scopes
 * @param logStatements statements and groups over log records, their resources and scopes
 */
public record TransformConfig(
    ErrorMode errorMode,
    List<Object> traceStatements,
    List<Object> metricStatements,
    List<Object> logStatements)
    implements ComponentConfig {
  public static final TransformConfig DEFAULT =
      new TransformConfig(ErrorMode.PROPAGATE, List.of(), List.of(), List.of());

  @Override
  public void validate(ConfigProblems problems) {
    if (errorMode == null) {
      problems.add("error_mode", "must be one of propagate, ignore, silent");
      return;
    }
    Groups.compile(Groups.TRACES, traceStatements, errorMode, problems);
    Groups.compile(Groups.METRICS, metricStatements, errorMode, problems);
    Groups.compile(Groups.LOGS, logStatements, errorMode, problems);
  }
}
