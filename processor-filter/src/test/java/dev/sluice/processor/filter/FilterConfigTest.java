package dev.sluice.processor.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import dev.sluice.ottl.ErrorMode;
import org.junit.jupiter.api.Test;

class FilterConfigTest {
  @Test
  void defaultsToIgnoreAndNoConditions() throws ConfigException {
    FilterConfig config = Otlp.config("{}\n");
    assertThat(config.errorMode()).isEqualTo(ErrorMode.IGNORE);
    assertThat(config.traces().span()).isEmpty();
    assertThat(config.logs().logRecord()).isEmpty();
  }

  @Test
  void bindsTheCollectorsKeys() throws ConfigException {
    FilterConfig config =
        Otlp.config(
            "error_mode: ignore\n"
                + "traces:\n  span: ['name == \"a\"']\n  spanevent: ['name == \"b\"']\n"
                + "metrics:\n  metric: ['name == \"c\"']\n  datapoint: ['value_int == 1']\n"
                + "logs:\n  log_record: ['severity_text == \"d\"']\n");
    assertThat(config.errorMode()).isEqualTo(ErrorMode.IGNORE);
    assertThat(config.traces().spanevent()).containsExactly("name == \"b\"");
    assertThat(config.metrics().datapoint()).containsExactly("value_int == 1");
    assertThat(config.logs().logRecord()).containsExactly("severity_text == \"d\"");
  }

  @Test
  void placesAnOttlErrorAtItsConditionInTheFileWithItsColumn() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                Otlp.config(
                    "traces:\n  span:\n    - name == \"a\"\n    - attributes[\"k\"] == \"v\" and nmae == \"b\"\n"));
    assertThat(e.problems()).hasSize(1);
    ConfigProblem problem = e.problems().get(0);
    assertThat(problem.path()).isEqualTo("traces.span[1]");
    assertThat(problem.location().line()).isEqualTo(4);
    assertThat(problem.location().column()).isEqualTo(7);
    assertThat(problem.message())
        .startsWith("invalid OTTL condition at column 28 of the condition: unknown path 'nmae'");
    assertThat(problem.toString()).startsWith("filter.yaml:4:7: traces.span[1]: invalid OTTL");
  }

  @Test
  void reportsEveryBadConditionOfEveryContext() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                Otlp.config(
                    "traces:\n  spanevent: ['kind == 1']\n"
                        + "metrics:\n  datapoint: ['IsMatch(name, \"x\")']\n"
                        + "logs:\n  log_record: ['body ==', 'severity_number > SEVERITY_NUMBER_LOUD']\n"));
    assertThat(e.problems())
        .extracting(ConfigProblem::path)
        .containsExactlyInAnyOrder(
            "traces.spanevent[0]",
            "metrics.datapoint[0]",
            "logs.log_record[0]",
            "logs.log_record[1]");
    assertThat(e.problems())
        .extracting(ConfigProblem::message)
        .anySatisfy(m -> assertThat(m).contains("unknown path 'kind' in the spanevent context"))
        .anySatisfy(m -> assertThat(m).contains("unknown path 'name' in the datapoint context"))
        .anySatisfy(m -> assertThat(m).contains("column 8 of the condition: expected a value"))
        .anySatisfy(m -> assertThat(m).contains("unknown enum 'SEVERITY_NUMBER_LOUD'"));
  }

  @Test
  void namesTheLineOfAMultiLineCondition() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                Otlp.config(
                    "logs:\n  log_record:\n    - |\n      body == \"a\"\n      or bdy == 1\n"));
    assertThat(e.problems().get(0).message()).contains("at line 2, column 4 of the condition");
  }

  @Test
  void refusesTheLegacyFormsPointingToOttl() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                Otlp.config(
                    "spans:\n  include:\n    match_type: strict\n    services: [a]\n"
                        + "metrics:\n  exclude:\n    match_type: regexp\n    metric_names: [x]\n"
                        + "logs:\n  include:\n    severity_number: {min: WARN}\n"));
    assertThat(e.problems())
        .extracting(ConfigProblem::path)
        .containsExactlyInAnyOrder("spans", "metrics.exclude", "logs.include");
    assertThat(e.problems())
        .extracting(ConfigProblem::message)
        .allSatisfy(m -> assertThat(m).contains("legacy include/exclude form is not supported"))
        .anySatisfy(m -> assertThat(m).contains("traces.span"))
        .anySatisfy(m -> assertThat(m).contains("metrics.metric"))
        .anySatisfy(m -> assertThat(m).contains("logs.log_record"));
  }

  @Test
  void refusesAnUnknownErrorMode() {
    ConfigException e =
        catchThrowableOfType(ConfigException.class, () -> Otlp.config("error_mode: loud\n"));
    assertThat(e.problems().get(0).message()).contains("propagate, ignore, silent");
  }
}
