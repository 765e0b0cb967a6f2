package dev.sluice.connector.count;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Unsupported;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlContext;
import dev.sluice.ottl.OttlException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code count} connector's configuration, with the OpenTelemetry Collector's keys: per kind of
 * item counted, the count metrics to emit, by name. A section left out, null or empty counts with
 * its default metric ({@code trace.span.count}, ...); a section that names metrics emits those
 * only. Every condition is compiled when the configuration is validated, so an error is reported
 * with its key path and its line and column in the condition before anything starts.
 *
 * @param spans counts of spans (traces pipelines)
 * @param spanevents counts of span events (traces pipelines)
 * @param metrics counts of metrics (metrics pipelines)
 * @param datapoints counts of metric data points (metrics pipelines)
 * @param logs counts of log records (logs pipelines)
 * @param profiles the Collector's profiles section: Sluice has no profiles signal, so it is ignored
 *     with a warning
 */
public record CountConfig(
    Map<String, MetricInfo> spans,
    Map<String, MetricInfo> spanevents,
    Map<String, MetricInfo> metrics,
    Map<String, MetricInfo> datapoints,
    Map<String, MetricInfo> logs,
    Unsupported profiles)
    implements ComponentConfig {

  public static final String DEFAULT_SPANS = "trace.span.count";
  public static final String DEFAULT_SPAN_EVENTS = "trace.span.event.count";
  public static final String DEFAULT_METRICS = "metric.count";
  public static final String DEFAULT_DATA_POINTS = "metric.datapoint.count";
  public static final String DEFAULT_LOGS = "log.record.count";

  public static final CountConfig DEFAULT =
      new CountConfig(Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), null);

  /**
   * One count metric.
   *
   * @param description the metric's description
   * @param conditions OTTL conditions of the section's context; an item is counted when any one
   *     matches (all items when there are none)
   * @param attributes the attributes to count by: one data point per distinct set of values
   */
  public record MetricInfo(
      String description, List<String> conditions, List<AttributeConfig> attributes) {
    public static final MetricInfo DEFAULT = new MetricInfo("", List.of(), List.of());

    public MetricInfo {
      description = description == null ? "" : description;
      conditions = conditions == null ? List.of() : List.copyOf(conditions);
      attributes = attributes == null ? List.of() : List.copyOf(attributes);
    }
  }

  /**
   * An attribute to count by.
   *
   * @param key the attribute's key, looked up on the item, then its scope, then its resource
   * @param defaultValue the value counted under when none of them has the key; without one, such
   *     items are not counted in this metric
   */
  public record AttributeConfig(String key, Object defaultValue) {
    public static final AttributeConfig DEFAULT = new AttributeConfig("", null);

    public AttributeConfig {
      key = key == null ? "" : key;
    }
  }

  /** What is counted, with its key, OTTL context, default metric and description. */
  enum Section {
    SPANS("spans", OttlContext.SPAN, DEFAULT_SPANS, "The number of spans observed."),
    SPAN_EVENTS(
        "spanevents",
        OttlContext.SPANEVENT,
        DEFAULT_SPAN_EVENTS,
        "The number of span events observed."),
    METRICS("metrics", OttlContext.METRIC, DEFAULT_METRICS, "The number of metrics observed."),
    DATA_POINTS(
        "datapoints",
        OttlContext.DATAPOINT,
        DEFAULT_DATA_POINTS,
        "The number of data points observed."),
    LOGS("logs", OttlContext.LOG, DEFAULT_LOGS, "The number of log records observed.");

    final String key;
    final OttlContext context;
    final String defaultName;
    final String defaultDescription;

    Section(String key, OttlContext context, String defaultName, String defaultDescription) {
      this.key = key;
      this.context = context;
      this.defaultName = defaultName;
      this.defaultDescription = defaultDescription;
    }

    Map<String, MetricInfo> defaults() {
      return Map.of(defaultName, new MetricInfo(defaultDescription, List.of(), List.of()));
    }
  }

  public CountConfig {
    spans = orDefault(spans, Section.SPANS);
    spanevents = orDefault(spanevents, Section.SPAN_EVENTS);
    metrics = orDefault(metrics, Section.METRICS);
    datapoints = orDefault(datapoints, Section.DATA_POINTS);
    logs = orDefault(logs, Section.LOGS);
  }

  /** An absent or empty section counts with its default metric, as in the Collector. */
  private static Map<String, MetricInfo> orDefault(Map<String, MetricInfo> section, Section which) {
    if (section == null || section.isEmpty()) {
      return which.defaults();
    }
    Map<String, MetricInfo> copy = new LinkedHashMap<>();
    section.forEach((name, info) -> copy.put(name, info == null ? MetricInfo.DEFAULT : info));
    return Collections.unmodifiableMap(copy);
  }

  /** The metrics of a section, in the order of the file. */
  Map<String, MetricInfo> section(Section which) {
    return switch (which) {
      case SPANS -> spans;
      case SPAN_EVENTS -> spanevents;
      case METRICS -> metrics;
      case DATA_POINTS -> datapoints;
      case LOGS -> logs;
    };
  }

  @Override
  public void validate(ConfigProblems problems) {
    Map<String, Section> firstSection = new HashMap<>();
    for (Section section : Section.values()) {
      ConfigProblems under = problems.under(section.key);
      section(section)
          .forEach(
              (name, info) -> {
                if (name.isEmpty()) {
                  under.add("", "a metric name is empty: name each count metric");
                  return;
                }
                Section earlier = firstSection.putIfAbsent(name, section);
                if (earlier != null) {
                  under.add(
                      name,
                      "metric \""
                          + name
                          + "\" is also counted under "
                          + earlier.key
                          + (earlier.defaultName.equals(name) ? " (its default metric)" : "")
                          + ": give each count metric its own name, or their data points"
                          + " would collide");
                }
                ConfigProblems metric = under.under(name);
                compile(info.conditions(), section.context, metric.under("conditions"));
                validateAttributes(section, info.attributes(), metric);
              });
    }
  }

  private static void validateAttributes(
      Section section, List<AttributeConfig> attributes, ConfigProblems metric) {
    if (section == Section.METRICS && !attributes.isEmpty()) {
      metric.add(
          "attributes",
          "metrics have no attributes to count by: count data points by attribute under"
              + " datapoints");
      return;
    }
    Set<String> keys = new HashSet<>();
    for (int i = 0; i < attributes.size(); i++) {
      AttributeConfig attribute = attributes.get(i);
      ConfigProblems at = metric.under("attributes").item(i);
      if (attribute == null || attribute.key().isEmpty()) {
        at.add("key", "attribute key missing");
        continue;
      }
      if (!keys.add(attribute.key())) {
        at.add(
            "key",
            "attribute \""
                + attribute.key()
                + "\" is listed twice: list each attribute to count by once");
      }
      if (attribute.defaultValue() != null) {
        try {
          CountValue.fromConfig(attribute.defaultValue());
        } catch (IllegalArgumentException e) {
          at.add("default_value", e.getMessage());
        }
      }
    }
  }

  /** Compiles conditions, reporting each that fails at its place in the list. */
  static List<OttlCondition> compile(
      List<String> conditions, OttlContext context, ConfigProblems problems) {
    List<OttlCondition> compiled = new ArrayList<>();
    for (int i = 0; i < conditions.size(); i++) {
      String condition = conditions.get(i);
      if (condition == null || condition.isBlank()) {
        problems.item(i).add("", "a condition is empty: write an OTTL condition or remove it");
        continue;
      }
      try {
        compiled.add(OttlCondition.parse(condition, context));
      } catch (OttlException e) {
        problems.item(i).add("", describe(e));
      }
    }
    return compiled;
  }

  /** An OTTL error as a configuration problem: where in the condition, then what. */
  private static String describe(OttlException e) {
    String where =
        e.line() == 1 ? "column " + e.column() : "line " + e.line() + ", column " + e.column();
    return "invalid OTTL condition at " + where + " of the condition: " + e.reason();
  }
}
