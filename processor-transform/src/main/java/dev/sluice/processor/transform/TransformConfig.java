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
 * @param errorMode what a statement that fails for an item does: {@code ignore} (default, as in the
 *     OpenTelemetry Collector since v0.153), {@code propagate} or {@code silent}; a group's own
 *     {@code error_mode} overrides it
 * @param traceStatements statements and groups over spans, their resources and scopes
 * @param metricStatements statements and groups over metrics, data points, resources and scopes
 * @param logStatements statements and groups over log records, their resources and scopes
 * @param flattenData the Collector's {@code flatten_data}: only {@code false} (see {@link
 *     #FLATTEN_REFUSED})
 */
public record TransformConfig(
    ErrorMode errorMode,
    List<Object> traceStatements,
    List<Object> metricStatements,
    List<Object> logStatements,
    boolean flattenData)
    implements ComponentConfig {
  public static final TransformConfig DEFAULT =
      new TransformConfig(ErrorMode.IGNORE, List.of(), List.of(), List.of());

  /**
   * Why {@code flatten_data: true} is refused: the Collector gives each log record its own copy of
   * its resource and scope while the statements run, then groups equal ones again. Here a block's
   * resource and scope are one header for all its records, edited in place once per block, so a
   * record cannot have a copy of its own.
   */
  static final String FLATTEN_REFUSED =
      "flatten_data: true is not supported by this build: a resource or scope is edited once for"
          + " all the log records of its block, and a record cannot have a copy of its own; write"
          + " per-record values as log attributes, or split the records into blocks of their own"
          + " before this processor";

  /** Without {@code flatten_data}. */
  public TransformConfig(
      ErrorMode errorMode,
      List<Object> traceStatements,
      List<Object> metricStatements,
      List<Object> logStatements) {
    this(errorMode, traceStatements, metricStatements, logStatements, false);
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (errorMode == null) {
      problems.add("error_mode", "must be one of propagate, ignore, silent");
      return;
    }
    Groups.compile(Groups.TRACES, traceStatements, errorMode, problems);
    Groups.compile(Groups.METRICS, metricStatements, errorMode, problems);
    Groups.compile(Groups.LOGS, logStatements, errorMode, problems);
    if (flattenData) {
      problems.add("flatten_data", FLATTEN_REFUSED);
    }
  }
}
