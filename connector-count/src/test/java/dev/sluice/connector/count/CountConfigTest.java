package dev.sluice.connector.count;

import static dev.sluice.connector.count.Otlp.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import dev.sluice.connector.count.CountConfig.AttributeConfig;
import dev.sluice.connector.count.CountConfig.MetricInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CountConfigTest {
  private static ConfigException refused(String yaml) {
    return catchThrowableOfType(ConfigException.class, () -> config(yaml));
  }

  @Test
  void withoutKeysCountsEverythingUnderTheCollectorsDefaultNames() throws ConfigException {
    CountConfig config = config("{}\n");
    assertThat(config.spans())
        .containsExactly(
            Map.entry(
                "trace.span.count",
                new MetricInfo("The number of spans observed.", List.of(), List.of())));
    assertThat(config.spanevents())
        .containsOnlyKeys("trace.span.event.count")
        .extractingByKey("trace.span.event.count")
        .extracting(MetricInfo::description)
        .isEqualTo("The number of span events observed.");
    assertThat(config.metrics().get("metric.count").description())
        .isEqualTo("The number of metrics observed.");
    assertThat(config.datapoints().get("metric.datapoint.count").description())
        .isEqualTo("The number of data points observed.");
    assertThat(config.logs().get("log.record.count").description())
        .isEqualTo("The number of log records observed.");
  }

  @Test
  void aSectionNamingMetricsReplacesItsDefaultAndAnEmptyOneKeepsIt() throws ConfigException {
    CountConfig config =
        config(
            "spans:\n"
                + "  my.span.count:\n"
                + "    description: My spans.\n"
                + "spanevents: {}\n"
                + "logs:\n");
    assertThat(config.spans()).containsOnlyKeys("my.span.count");
    assertThat(config.spans().get("my.span.count").description()).isEqualTo("My spans.");
    assertThat(config.spanevents()).containsOnlyKeys("trace.span.event.count");
    assertThat(config.logs()).containsOnlyKeys("log.record.count");
    assertThat(config.metrics()).containsOnlyKeys("metric.count");
  }

  @Test
  void bindsConditionsAndAttributesWithTypedDefaultValues() throws ConfigException {
    CountConfig config =
        config(
            "logs:\n"
                + "  limited.logrecord.count:\n"
                + "    description: Limited.\n"
                + "    conditions:\n"
                + "      - 'severity_number >= SEVERITY_NUMBER_ERROR'\n"
                + "      - 'attributes[\"env\"] == \"prod\"'\n"
                + "    attributes:\n"
                + "      - key: env\n"
                + "        default_value: local\n"
                + "      - key: http_code\n"
                + "        default_value: 200\n"
                + "      - key: request_success\n"
                + "        default_value: 0.85\n"
                + "      - key: cache_hit\n"
                + "        default_value: true\n"
                + "      - key: tenant\n"
                + "  bare.count:\n");
    MetricInfo limited = config.logs().get("limited.logrecord.count");
    assertThat(limited.conditions())
        .containsExactly(
            "severity_number >= SEVERITY_NUMBER_ERROR", "attributes[\"env\"] == \"prod\"");
    assertThat(limited.attributes())
        .containsExactly(
            new AttributeConfig("env", "local"),
            new AttributeConfig("http_code", 200L),
            new AttributeConfig("request_success", 0.85),
            new AttributeConfig("cache_hit", true),
            new AttributeConfig("tenant", null));
    assertThat(config.logs()).containsKeys("limited.logrecord.count", "bare.count");
    assertThat(config.logs().get("bare.count")).isEqualTo(MetricInfo.DEFAULT);
    assertThat(config.logs().keySet())
        .as("the file's order")
        .containsExactly("limited.logrecord.count", "bare.count");
  }

  @Test
  void refusesUnknownKeysAtEveryLevel() {
    ConfigException e =
        refused(
            "span:\n  x: {}\n"
                + "logs:\n  my.count:\n    condition: ['true']\n"
                + "datapoints:\n  my.points:\n    attributes:\n      - key: a\n        default: b\n");
    assertThat(e.problems())
        .extracting(ConfigProblem::path)
        .containsExactlyInAnyOrder(
            "span", "logs.my.count.condition", "datapoints.my.points.attributes[0].default");
  }

  @Test
  void acceptsTheCollectorsProfilesSectionAndIgnoresIt() throws ConfigException {
    CountConfig config = config("profiles:\n  my.profile.count: {}\n");
    assertThat(config.profiles()).isNotNull();
    assertThat(config.spans()).containsOnlyKeys("trace.span.count");
  }

  @Test
  void placesAnOttlErrorAtItsConditionWithItsColumn() {
    ConfigException e =
        refused(
            "spans:\n"
                + "  my.span.count:\n"
                + "    conditions:\n"
                + "      - name == \"a\"\n"
                + "      - attributes[\"k\"] == \"v\" and nmae == \"b\"\n");
    assertThat(e.problems()).hasSize(1);
    ConfigProblem problem = e.problems().get(0);
    assertThat(problem.path()).isEqualTo("spans.my.span.count.conditions[1]");
    assertThat(problem.location().line()).isEqualTo(5);
    assertThat(problem.message())
        .startsWith("invalid OTTL condition at column 28 of the condition: unknown path 'nmae'");
  }

  @Test
  void compilesEachSectionsConditionsInItsOwnContext() {
    ConfigException e =
        refused(
            "spanevents:\n  e: {conditions: ['kind == 1']}\n"
                + "datapoints:\n  d: {conditions: ['IsMatch(name, \"x\")']}\n"
                + "metrics:\n  m: {conditions: ['severity_number > 1']}\n"
                + "logs:\n  l: {conditions: ['severity_number > SEVERITY_NUMBER_LOUD', '']}\n");
    assertThat(e.problems())
        .extracting(ConfigProblem::path)
        .containsExactlyInAnyOrder(
            "spanevents.e.conditions[0]",
            "datapoints.d.conditions[0]",
            "metrics.m.conditions[0]",
            "logs.l.conditions[0]",
            "logs.l.conditions[1]");
    assertThat(e.problems())
        .extracting(ConfigProblem::message)
        .anySatisfy(m -> assertThat(m).contains("unknown path 'kind' in the spanevent context"))
        .anySatisfy(m -> assertThat(m).contains("unknown path 'name' in the datapoint context"))
        .anySatisfy(m -> assertThat(m).contains("unknown enum 'SEVERITY_NUMBER_LOUD'"))
        .anySatisfy(m -> assertThat(m).contains("a condition is empty"));
  }

  @Test
  void bindsTheDocumentedExample() throws ConfigException {
    CountConfig config =
        config(
            "spans:\n"
                + "  http.server.span.count:\n"
                + "    description: Server spans, by route.\n"
                + "    conditions:\n"
                + "      - kind == SPAN_KIND_SERVER\n"
                + "    attributes:\n"
                + "      - key: http.route\n"
                + "        default_value: unknown\n"
                + "logs:\n"
                + "  log.error.count:\n"
                + "    description: Error and fatal log records.\n"
                + "    conditions:\n"
                + "      - severity_number >= SEVERITY_NUMBER_ERROR\n");
    assertThat(config.spans()).containsOnlyKeys("http.server.span.count");
    assertThat(config.spanevents()).containsOnlyKeys("trace.span.event.count");
    assertThat(config.logs()).containsOnlyKeys("log.error.count");
  }

  @Test
  void acceptsPathsPrefixedWithTheirContext() throws ConfigException {
    CountConfig config =
        config(
            "spans:\n  s: {conditions: ['span.attributes[\"a\"] == \"b\"',"
                + " 'resource.attributes[\"host.name\"] == \"x\"']}\n"
                + "logs:\n  l: {conditions: ['log.severity_number >= SEVERITY_NUMBER_ERROR']}\n");
    assertThat(config.spans().get("s").conditions()).hasSize(2);
  }

  @Test
  void refusesAnEmptyMetricName() {
    ConfigException e = refused("spans:\n  '': {description: nameless}\n");
    assertThat(e.problems()).extracting(ConfigProblem::path).containsExactly("spans");
    assertThat(e.problems().get(0).message()).contains("a metric name is empty");
  }

  @Test
  void refusesAttributesOnMetricCountsAndAttributesWithoutKeyOrListedTwice() {
    ConfigException e =
        refused(
            "metrics:\n  m:\n    attributes: [{key: env}]\n"
                + "spans:\n  s:\n    attributes:\n      - key: env\n      - default_value: x\n"
                + "      - key: env\n");
    assertThat(e.problems())
        .extracting(ConfigProblem::path, ConfigProblem::message)
        .containsExactlyInAnyOrder(
            tuple(
                "metrics.m.attributes",
                "metrics have no attributes to count by: count data points by attribute under"
                    + " datapoints"),
            tuple("spans.s.attributes[1].key", "attribute key missing"),
            tuple(
                "spans.s.attributes[2].key",
                "attribute \"env\" is listed twice: list each attribute to count by once"));
  }

  @Test
  void refusesOneMetricNameCountedUnderTwoSections() {
    ConfigException e =
        refused(
            "spans:\n  errors: {}\n"
                + "spanevents:\n  errors: {}\n"
                + "logs:\n  errors: {}\n"
                + "datapoints:\n  metric.count: {}\n");
    assertThat(e.problems())
        .extracting(ConfigProblem::path)
        .containsExactlyInAnyOrder("spanevents.errors", "logs.errors", "datapoints.metric.count");
    assertThat(e.problems())
        .extracting(ConfigProblem::message)
        .anySatisfy(
            m -> assertThat(m).startsWith("metric \"errors\" is also counted under spans: "))
        .anySatisfy(
            m ->
                assertThat(m)
                    .startsWith(
                        "metric \"metric.count\" is also counted under metrics (its default"
                            + " metric)"));
  }

  @Test
  void acceptsListAndMappingDefaultValuesAsTheCollectorDoes() throws ConfigException {
    CountConfig config =
        config(
            "logs:\n  l:\n    attributes:\n      - key: k\n        default_value: [1, {a: b}]\n");
    assertThat(CountValue.fromConfig(config.logs().get("l").attributes().get(0).defaultValue()))
        .isEqualTo(
            new CountValue.Array(
                List.of(
                    new CountValue.Int(1),
                    new CountValue.KvList(
                        List.of(new CountValue.Entry("a", new CountValue.Text("b")))))));
  }
}
