package dev.sluice.processor.filter;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Unsupported;
import dev.sluice.ottl.ErrorMode;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlContext;
import dev.sluice.ottl.OttlException;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code filter} processor's configuration, with the OpenTelemetry Collector's keys: OTTL
 * conditions per context; data matching any condition of its context is dropped. Every condition is
 * parsed and compiled when the configuration is validated, so an error is reported with its key
 * path and its line and column in the condition before anything starts.
 *
 * <p>The Collector's legacy {@code include}/{@code exclude} form ({@code spans}, {@code
 * metrics.include}, {@code logs.exclude}, ...) is refused with a pointer to the OTTL form.
 *
 * @param errorMode what a condition that fails for an item does: {@code ignore} (default, as in the
 *     OpenTelemetry Collector since v0.153), {@code propagate} or {@code silent}
 * @param spans the legacy form for traces, refused
 */
public record FilterConfig(
    ErrorMode errorMode, Traces traces, Metrics metrics, Logs logs, Unsupported spans)
    implements ComponentConfig {
  public static final FilterConfig DEFAULT =
      new FilterConfig(
          ErrorMode.IGNORE,
          new Traces(List.of(), List.of()),
          new Metrics(List.of(), List.of(), null, null),
          new Logs(List.of(), null, null),
          null);

  /** {@code traces.span} and {@code traces.spanevent} conditions. */
  public record Traces(List<String> span, List<String> spanevent) {}

  /** {@code metrics.metric} and {@code metrics.datapoint} conditions; the legacy keys refused. */
  public record Metrics(
      List<String> metric, List<String> datapoint, Unsupported include, Unsupported exclude) {}

  /** {@code logs.log_record} conditions; the legacy keys refused. */
  public record Logs(List<String> logRecord, Unsupported include, Unsupported exclude) {}

  private static final String LEGACY =
      "the legacy include/exclude form is not supported: write OTTL conditions under ";

  @Override
  public void validate(ConfigProblems problems) {
    if (errorMode == null) {
      problems.add("error_mode", "must be one of propagate, ignore, silent");
    }
    if (spans != null) {
      problems.add(
          "spans",
          LEGACY
              + "traces.span, such as: traces: {span: ['attributes[\"http.route\"] == \"/health\"']}");
    }
    if (metrics.include() != null || metrics.exclude() != null) {
      problems.add(
          metrics.include() != null ? "metrics.include" : "metrics.exclude",
          LEGACY
              + "metrics.metric, such as: metrics: {metric: ['name == \"http.server.duration\"']}");
    }
    if (logs.include() != null || logs.exclude() != null) {
      problems.add(
          logs.include() != null ? "logs.include" : "logs.exclude",
          LEGACY
              + "logs.log_record, such as: logs: {log_record: ['severity_number < SEVERITY_NUMBER_WARN']}");
    }
    compile("traces.span", traces.span(), OttlContext.SPAN, problems);
    compile("traces.spanevent", traces.spanevent(), OttlContext.SPANEVENT, problems);
    compile("metrics.metric", metrics.metric(), OttlContext.METRIC, problems);
    compile("metrics.datapoint", metrics.datapoint(), OttlContext.DATAPOINT, problems);
    compile("logs.log_record", logs.logRecord(), OttlContext.LOG, problems);
  }

  /** Compiles the conditions of one key, reporting each that fails at its place in the list. */
  static List<OttlCondition> compile(
      String key, List<String> conditions, OttlContext context, ConfigProblems problems) {
    List<OttlCondition> compiled = new ArrayList<>();
    for (int i = 0; i < conditions.size(); i++) {
      try {
        compiled.add(OttlCondition.parse(conditions.get(i), context));
      } catch (OttlException e) {
        problems.under(key).item(i).add("", describe(e));
      }
    }
    return compiled;
  }

  /** An OTTL error as a configuration problem: where in the condition, then what. */
  static String describe(OttlException e) {
    String where =
        e.line() == 1 ? "column " + e.column() : "line " + e.line() + ", column " + e.column();
    return "invalid OTTL condition at " + where + " of the condition: " + e.reason();
  }
}
