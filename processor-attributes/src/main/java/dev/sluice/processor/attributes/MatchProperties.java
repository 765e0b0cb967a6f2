package dev.sluice.processor.attributes;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.Unsupported;
import dev.sluice.component.Validatable;
import dev.sluice.component.attributeactions.GoPattern;
import dev.sluice.pdata.Signal;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code include} or {@code exclude} selects, with the Go collector's keys. Every field given
 * must match (an item matches a list when it matches one of its entries); {@code match_type} says
 * how strings compare: {@code strict} (equal) or {@code regexp} (the pattern is found in the
 * string, Go's RE2 syntax).
 *
 * <p>Which fields apply depends on the pipeline's signal, as in Go: spans take {@code services},
 * {@code span_names}, {@code span_kinds}, {@code attributes}, {@code resources}, {@code libraries};
 * log records take {@code log_bodies}, {@code log_severity_texts}, {@code attributes}, {@code
 * resources}, {@code libraries}; metrics take {@code metric_names} and {@code resources}. A field
 * given for a signal it does not apply to is refused when the pipeline is built (Go ignores some of
 * them for metrics, which then selects every metric; Sluice refuses them instead).
 */
public record MatchProperties(
    String matchType,
    List<String> services,
    List<String> spanNames,
    List<String> spanKinds,
    List<AttributeMatch> attributes,
    List<AttributeMatch> resources,
    List<LibraryMatch> libraries,
    List<String> logBodies,
    List<String> logSeverityTexts,
    @OptionalSection LogSeverityNumber logSeverityNumber,
    List<String> metricNames,
    Unsupported regexp)
    implements Validatable {

  static final List<String> MATCH_TYPES = List.of("strict", "regexp");
  static final List<String> SPAN_KINDS =
      List.of(
          "SPAN_KIND_CLIENT",
          "SPAN_KIND_CONSUMER",
          "SPAN_KIND_INTERNAL",
          "SPAN_KIND_PRODUCER",
          "SPAN_KIND_SERVER");

  /** An attribute (or resource attribute) to match: its key, and its value unless any will do. */
  public record AttributeMatch(String key, Object value) {}

  /** An instrumentation scope to match: its name, and its version unless any will do. */
  public record LibraryMatch(String name, String version) {}

  boolean isRegexp() {
    return "regexp".equals(matchType);
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (matchType == null || !MATCH_TYPES.contains(matchType)) {
      problems.add(
          "match_type",
          (matchType == null
                  ? "missing required field \"match_type\""
                  : "unrecognized match_type \"" + matchType + "\"")
              + "; use one of "
              + MATCH_TYPES);
      return;
    }
    if (isRegexp()) {
      patterns("services", services, problems);
      patterns("span_names", spanNames, problems);
      patterns("span_kinds", spanKinds, problems);
      patterns("log_bodies", logBodies, problems);
      patterns("log_severity_texts", logSeverityTexts, problems);
      patterns("metric_names", metricNames, problems);
      for (int i = 0; i < libraries.size(); i++) {
        LibraryMatch library = libraries.get(i);
        pattern("libraries[" + i + "].name", nullToEmpty(library.name()), problems);
        if (library.version() != null) {
          pattern("libraries[" + i + "].version", library.version(), problems);
        }
      }
    } else {
      for (int i = 0; i < spanKinds.size(); i++) {
        if (!SPAN_KINDS.contains(spanKinds.get(i))) {
          problems.add(
              "span_kinds[" + i + "]",
              "\""
                  + spanKinds.get(i)
                  + "\" is not a span kind; with match_type strict use one of "
                  + SPAN_KINDS);
        }
      }
    }
    attributeMatches("attributes", attributes, problems);
    attributeMatches("resources", resources, problems);
  }

  private void attributeMatches(String field, List<AttributeMatch> matches, ConfigProblems p) {
    for (int i = 0; i < matches.size(); i++) {
      AttributeMatch match = matches.get(i);
      String at = field + "[" + i + "]";
      if (match.key() == null || match.key().isEmpty()) {
        p.add(at + ".key", "can't have an empty key in the list of " + field);
      }
      if (!isRegexp()
          && (match.value() instanceof List || match.value() instanceof java.util.Map)) {
        p.add(at + ".value", "matching an array or map value is not supported; match a key");
      }
      if (match.value() != null && isRegexp()) {
        if (match.value() instanceof String pattern) {
          pattern(at + ".value", pattern, p);
        } else {
          p.add(
              at + ".value",
              "match_type=regexp for \""
                  + match.key()
                  + "\" only supports strings, but found "
                  + match.value().getClass().getSimpleName());
        }
      }
    }
  }

  private static void patterns(String field, List<String> values, ConfigProblems problems) {
    for (int i = 0; i < values.size(); i++) {
      pattern(field + "[" + i + "]", values.get(i), problems);
    }
  }

  private static void pattern(String path, String pattern, ConfigProblems problems) {
    try {
      GoPattern.compile(pattern);
    } catch (IllegalArgumentException e) {
      problems.add(path, "invalid pattern \"" + pattern + "\": " + e.getMessage());
    }
  }

  static String nullToEmpty(String text) {
    return text == null ? "" : text;
  }

  /**
   * What is wrong with these properties for a pipeline of {@code signal}, as the Go collector
   * reports it when it builds the pipeline; empty when nothing is.
   */
  List<String> problemsFor(Signal signal) {
    List<String> found = new ArrayList<>();
    switch (signal) {
      case TRACES -> {
        refuse(found, "log_bodies", logBodies, "trace spans");
        refuse(found, "log_severity_texts", logSeverityTexts, "trace spans");
        refuse(found, "log_severity_number", logSeverityNumber, "trace spans");
        refuse(found, "metric_names", metricNames, "trace spans");
        if (services.isEmpty()
            && spanNames.isEmpty()
            && spanKinds.isEmpty()
            && attributes.isEmpty()
            && resources.isEmpty()
            && libraries.isEmpty()) {
          found.add(
              "at least one of \"services\", \"span_names\", \"span_kinds\", \"attributes\","
                  + " \"libraries\" or \"resources\" must be specified for spans");
        }
      }
      case LOGS -> {
        refuse(found, "services", services, "log records");
        refuse(found, "span_names", spanNames, "log records");
        refuse(found, "span_kinds", spanKinds, "log records");
        refuse(found, "metric_names", metricNames, "log records");
        if (attributes.isEmpty()
            && resources.isEmpty()
            && libraries.isEmpty()
            && logBodies.isEmpty()
            && logSeverityTexts.isEmpty()
            && logSeverityNumber == null) {
          found.add(
              "at least one of \"attributes\", \"libraries\", \"resources\", \"log_bodies\","
                  + " \"log_severity_texts\" or \"log_severity_number\" must be specified for log"
                  + " records");
        }
      }
      case METRICS -> {
        refuse(found, "services", services, "metrics");
        refuse(found, "span_names", spanNames, "metrics");
        refuse(found, "span_kinds", spanKinds, "metrics");
        refuse(found, "attributes", attributes, "metrics");
        refuse(found, "libraries", libraries, "metrics");
        refuse(found, "log_bodies", logBodies, "metrics");
        refuse(found, "log_severity_texts", logSeverityTexts, "metrics");
        refuse(found, "log_severity_number", logSeverityNumber, "metrics");
        if (metricNames.isEmpty() && resources.isEmpty()) {
          found.add(
              "at least one of \"metric_names\" or \"resources\" must be specified for metrics");
        }
      }
    }
    return found;
  }

  private static void refuse(List<String> found, String field, List<?> values, String what) {
    if (!values.isEmpty()) {
      found.add(field + " should not be specified for " + what);
    }
  }

  private static void refuse(List<String> found, String field, Object value, String what) {
    if (value != null) {
      found.add(field + " should not be specified for " + what);
    }
  }
}
