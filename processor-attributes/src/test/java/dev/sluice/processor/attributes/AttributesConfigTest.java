package dev.sluice.processor.attributes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import dev.sluice.pdata.Signal;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each configuration mistake is reported at the field of the action (or match) it is in. */
class AttributesConfigTest {
  private static List<String> problems(String yaml) {
    try {
      Harness.bind(yaml);
    } catch (ConfigException e) {
      return e.problems().stream().map(p -> p.path() + ": " + p.message()).toList();
    }
    throw new AssertionError("accepted: " + yaml);
  }

  @Test
  void refusesAConfigurationWithoutActions() {
    assertThat(problems("include: {match_type: strict, services: [a]}\n"))
        .containsExactly("actions: missing required field \"actions\": list the actions");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {key: a}                                            | actions[0].action: missing required field "action"
          {key: a, action: rename}                            | actions[0].action: unsupported action "rename"
          {value: 1, action: insert}                          | actions[0].key: missing required field "key" for action "insert"
          {key: a, action: upsert}                            | actions[0].value: action "upsert" needs one of "value", "from_attribute" or "from_context"
          {key: a, value: 1, from_attribute: b, action: update} | actions[0].value: action "update" takes only one of "value", "from_attribute" and "from_context"
          {key: a, value: 1, pattern: x, action: insert}      | actions[0].pattern: action "insert" does not use "pattern"; remove it
          {key: a, value: 1, converted_type: int, action: insert} | actions[0].converted_type: action "insert" does not use "converted_type"
          {action: delete}                                    | actions[0].key: action "delete" needs at least one of "key" and "pattern"
          {key: a, value: 1, action: hash}                    | actions[0].value: action "hash" does not use "value"
          {key: a, from_attribute: b, action: delete}         | actions[0].from_attribute: action "delete" does not use "from_attribute"
          {pattern: '(', action: delete}                      | actions[0].pattern: invalid pattern "(": Unclosed group
          {pattern: 'a(?=b)', action: hash}                   | actions[0].pattern: invalid pattern "a(?=b)": invalid or unsupported Perl syntax
          {key: a, action: extract}                           | actions[0].pattern: missing required field "pattern" for action "extract"
          {key: a, pattern: 'a+', action: extract}            | actions[0].pattern: contains no named capture groups
          {key: a, pattern: '(?P<x>a)(b)', action: extract}   | actions[0].pattern: contains an unnamed capture group
          {key: a, value: 1, pattern: '(?P<x>a)', action: extract} | actions[0].value: action "extract" does not use "value"
          {key: a, action: convert}                           | actions[0].converted_type: missing required field "converted_type" for action "convert"
          {key: a, action: convert, converted_type: bool}     | actions[0].converted_type: invalid value "bool"; use one of [int, double, string]
          {key: a, pattern: x, action: convert, converted_type: int} | actions[0].pattern: action "convert" does not use "pattern"
          {key: a, from_context: metadata.tenant, action: insert} | actions[0].from_context: not supported: the receivers' client metadata
          """)
  void reportsTheFieldOfTheActionThatIsWrong(String action, String expected) {
    assertThat(problems("actions:\n  - " + action + "\n")).anyMatch(p -> p.startsWith(expected));
  }

  @Test
  void reportsEveryWrongActionAtItsIndex() {
    assertThat(
            problems(
                """
                actions:
                  - {key: ok, value: 1, action: insert}
                  - {key: a, action: convert}
                  - {action: hash}
                """))
        .extracting(p -> p.substring(0, p.indexOf(':')))
        .containsExactly("actions[1].converted_type", "actions[2].key");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          {services: [a]}                                      | include.match_type: missing required field "match_type"; use one of [strict, regexp]
          {match_type: expr, services: [a]}                    | include.match_type: unrecognized match_type "expr"
          {match_type: strict, span_kinds: [server]}           | include.span_kinds[0]: "server" is not a span kind
          {match_type: regexp, span_names: ['(']}              | include.span_names[0]: invalid pattern "("
          {match_type: regexp, attributes: [{key: a, value: 1}]} | include.attributes[0].value: match_type=regexp for "a" only supports strings, but found Long
          {match_type: strict, attributes: [{value: 1}]}       | include.attributes[0].key: can't have an empty key
          {match_type: strict, log_severity_number: {min: loud}} | include.log_severity_number.min: unrecognized severity "loud"
          """)
  void reportsTheFieldOfTheMatchThatIsWrong(String include, String expected) {
    assertThat(
            problems(
                "include: " + include + "\nactions:\n  - {key: a, value: 1, action: upsert}\n"))
        .anyMatch(p -> p.startsWith(expected));
  }

  @Test
  void refusesFieldsThatDoNotApplyToThePipelinesSignalWhenItIsBuilt() throws ConfigException {
    AttributesConfig config =
        Harness.bind(
            """
            include: {match_type: strict, span_names: [a]}
            exclude: {match_type: strict, metric_names: [b]}
            actions:
              - {key: a, value: 1, action: upsert}
            """);
    AttributesProcessorFactory factory = new AttributesProcessorFactory();

    assertThatThrownBy(() -> factory.createFunction(Harness.SETTINGS, config, Signal.LOGS))
        .hasMessage(
            "attributes in a logs pipeline: include: span_names should not be specified for log"
                + " records; include: at least one of \"attributes\", \"libraries\", \"resources\","
                + " \"log_bodies\", \"log_severity_texts\" or \"log_severity_number\" must be"
                + " specified for log records; exclude: metric_names should not be specified for log"
                + " records; exclude: at least one of \"attributes\", \"libraries\", \"resources\","
                + " \"log_bodies\", \"log_severity_texts\" or \"log_severity_number\" must be"
                + " specified for log records");
    assertThatThrownBy(() -> factory.createFunction(Harness.SETTINGS, config, Signal.METRICS))
        .hasMessageContaining("include: span_names should not be specified for metrics");
    assertThatThrownBy(() -> factory.createFunction(Harness.SETTINGS, config, Signal.TRACES))
        .hasMessage(
            "attributes in a traces pipeline: exclude: metric_names should not be specified for"
                + " trace spans; exclude: at least one of \"services\", \"span_names\","
                + " \"span_kinds\", \"attributes\", \"libraries\" or \"resources\" must be"
                + " specified for spans");
  }

  @Test
  void acceptsGosRegexpCacheSettingsAndIgnoresThem() throws ConfigException {
    AttributesConfig config =
        Harness.bind(
            "include: {match_type: regexp, span_names: [a], regexp: {cacheenabled: true}}\n"
                + "actions:\n  - {key: a, value: 1, action: upsert}\n");

    assertThat(config.include().regexp()).isNotNull();
  }

  @Test
  void problemsPointAtTheLineOfTheField() {
    try {
      Harness.bind("actions:\n  - key: a\n    action: convert\n    converted_type: bool\n");
      throw new AssertionError("accepted");
    } catch (ConfigException e) {
      ConfigProblem problem = e.problems().get(0);
      assertThat(problem.location().line()).isEqualTo(4);
    }
  }
}
