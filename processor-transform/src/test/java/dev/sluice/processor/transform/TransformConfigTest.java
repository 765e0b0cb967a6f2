package dev.sluice.processor.transform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import dev.sluice.ottl.ErrorMode;
import org.junit.jupiter.api.Test;

class TransformConfigTest {
  private static ConfigProblem onlyProblem(String yaml) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Harness.bind(yaml));
    assertThat(e).as("a configuration error").isNotNull();
    assertThat(e.problems()).hasSize(1);
    return e.problems().get(0);
  }

  @Test
  void defaultsToIgnoreAndNoStatements() throws ConfigException {
    TransformConfig config = Harness.bind("{}\n");
    assertThat(config.errorMode()).isEqualTo(ErrorMode.IGNORE);
    assertThat(config.traceStatements()).isEmpty();
  }

  @Test
  void refusesAnUnknownEditorWithItsPosition() {
    ConfigProblem problem =
        onlyProblem(
            "trace_statements:\n  - context: span\n    statements:\n"
                + "      - 'set(attributes[\"a\"], \"b\")'\n"
                + "      - 'sett(attributes[\"a\"], \"b\")'\n");
    assertThat(problem.path()).isEqualTo("trace_statements[0].statements[1]");
    assertThat(problem.location().line()).isEqualTo(5);
    assertThat(problem.message())
        .startsWith("invalid OTTL statement at column 1 of the statement: unknown editor 'sett'")
        .contains("set, delete_key, delete_matching_keys, keep_keys");
  }

  @Test
  void refusesAPathThatCannotBeSetListingWhatCan() {
    ConfigProblem problem =
        onlyProblem("trace_statements:\n  - 'set(span.span_id, span.trace_id)'\n");
    assertThat(problem.path()).isEqualTo("trace_statements[0]");
    assertThat(problem.location().line()).isEqualTo(2);
    assertThat(problem.message())
        .startsWith(
            "invalid OTTL statement at column 5 of the statement: 'span.span_id' cannot be"
                + " written in the span context; this build can set attributes,")
        .contains("status.code", "resource.attributes[\"key\"]", "cache");
  }

  @Test
  void refusesAnArgumentOfTheWrongType() {
    ConfigProblem problem =
        onlyProblem(
            "log_statements:\n  - context: log\n    statements: ['set(severity_text, 3)']\n");
    assertThat(problem.path()).isEqualTo("log_statements[0].statements[0]");
    assertThat(problem.message())
        .isEqualTo(
            "invalid OTTL statement at column 20 of the statement: set(severity_text, ...) takes"
                + " a string, found a int");
  }

  @Test
  void takesNestedKeysAsATargetAndMapsInValuesButNotTheBodyAsAMap() throws ConfigException {
    Harness.bind(
        "trace_statements:\n  - 'set(span.attributes[\"a\"][\"b\"][0], \"c\")'\n"
            + "  - 'delete_key(span.attributes[\"a\"][\"b\"], \"c\")'\n"
            + "log_statements:\n  - 'set(log.body[\"a\"][1], 1)'\n");
    ConfigProblem problem = onlyProblem("log_statements:\n  - 'delete_key(log.body, \"b\")'\n");
    assertThat(problem.message())
        .endsWith("delete_key takes a map such as attributes, found 'body'");
    assertThat(onlyProblem("trace_statements:\n  - 'set(span.name[\"a\"], \"b\")'\n").message())
        .endsWith("'name' takes no keys");
  }

  @Test
  void infersTheSpanEventContextFromItsPathsAndTakesItAsAGroupsContext() throws ConfigException {
    TransformConfig config =
        Harness.bind(
            "trace_statements:\n"
                + "  - 'set(span.name, \"x\") where spanevent.name == \"exception\"'\n"
                + "  - context: spanevent\n    statements: ['set(name, \"x\")']\n");
    assertThat(
            Groups.compile(
                    Groups.TRACES,
                    config.traceStatements(),
                    ErrorMode.PROPAGATE,
                    new dev.sluice.component.ConfigProblems())
                .stream()
                .map(StatementGroup::context))
        .containsExactly(
            dev.sluice.ottl.OttlContext.SPANEVENT, dev.sluice.ottl.OttlContext.SPANEVENT);
  }

  @Test
  void refusesASpanEventFieldItCannotWriteOrAValueOfTheWrongType() {
    ConfigProblem unwritable =
        onlyProblem(
            "trace_statements:\n  - context: spanevent\n    statements:\n"
                + "      - 'set(span.span_id, span.trace_id)'\n");
    assertThat(unwritable.path()).isEqualTo("trace_statements[0].statements[0]");
    assertThat(unwritable.location().line()).isEqualTo(4);
    assertThat(unwritable.message())
        .startsWith(
            "invalid OTTL statement at column 5 of the statement: 'span.span_id' cannot be"
                + " written in the spanevent context; this build can set attributes,")
        .contains("time_unix_nano", "dropped_attributes_count", "span.status.code");
    assertThat(
            onlyProblem("trace_statements:\n  - 'set(spanevent.time_unix_nano, \"soon\")'\n")
                .message())
        .isEqualTo(
            "invalid OTTL statement at column 31 of the statement: set(spanevent.time_unix_nano,"
                + " ...) takes a int, found a string");
    assertThat(onlyProblem("log_statements:\n  - 'set(spanevent.name, \"b\")'\n").message())
        .isEqualTo(
            "'spanevent' paths are not available in log_statements, which take resource, scope,"
                + " log");
  }

  @Test
  void refusesASharedCacheThatIsNotABool() {
    ConfigProblem problem =
        onlyProblem(
            "trace_statements:\n  - context: span\n    shared_cache: 3\n"
                + "    statements: ['set(name, \"x\")']\n");
    assertThat(problem.path()).isEqualTo("trace_statements[0].shared_cache");
    assertThat(problem.message()).isEqualTo("must be true or false");
  }

  @Test
  void refusesAFlatStatementWhosePathNamesNoContext() {
    ConfigProblem problem = onlyProblem("trace_statements:\n  - 'set(attributes[\"a\"], \"b\")'\n");
    assertThat(problem.message())
        .isEqualTo(
            "invalid OTTL statement at column 5 of the statement: 'attributes[\"a\"]' names no"
                + " context: without a context key, each path starts with one (resource, scope,"
                + " span, spanevent, metric, datapoint, log), such as span.name");
  }

  @Test
  void refusesAContextOfAnotherSignal() {
    ConfigProblem problem = onlyProblem("log_statements:\n  - 'set(span.name, \"b\")'\n");
    assertThat(problem.message())
        .isEqualTo(
            "'span' paths are not available in log_statements, which take resource, scope, log");
  }

  @Test
  void infersTheLowestContextOfAGroupWithoutOne() throws ConfigException {
    TransformConfig config =
        Harness.bind(
            "metric_statements:\n  - statements:\n"
                + "      - 'set(resource.attributes[\"a\"], \"b\")'\n"
                + "      - 'set(metric.description, \"d\") where datapoint.attributes[\"x\"] == \"y\"'\n");
    assertThat(
            Groups.compile(
                    Groups.METRICS,
                    config.metricStatements(),
                    ErrorMode.PROPAGATE,
                    new dev.sluice.component.ConfigProblems())
                .get(0)
                .context())
        .isEqualTo(dev.sluice.ottl.OttlContext.DATAPOINT);
  }

  @Test
  void refusesUnknownGroupKeysAndBadErrorModes() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                Harness.bind(
                    "trace_statements:\n  - context: span\n    error_mode: loud\n"
                        + "    statement: ['set(name, \"x\")']\n"));
    assertThat(e.problems())
        .extracting(ConfigProblem::path)
        .contains("trace_statements[0].error_mode", "trace_statements[0].statement");
  }

  @Test
  void refusesAReplaceFunctionThatIsNotAStringConverterAndABadFormat() {
    String prefix =
        "trace_statements:\n  - 'replace_pattern(span.attributes[\"a\"], \"x\", \"y\", ";
    ConfigProblem len = onlyProblem(prefix + "Len)'\n");
    assertThat(len.path()).isEqualTo("trace_statements[0]");
    assertThat(len.message())
        .isEqualTo(
            "invalid OTTL statement at column 49 of the statement: 'Len' cannot be the function of"
                + " replace_pattern, which takes a converter of one string that returns a string:"
                + " SHA1, SHA256, SHA512, MD5, Murmur3Hash, Murmur3Hash128, ToLowerCase,"
                + " ToUpperCase");
    assertThat(onlyProblem(prefix + "FNV)'\n").message())
        .contains("FNV returns an int, and the function of replace_pattern must return a string");
    assertThat(onlyProblem(prefix + "\"SHA256\")'\n").message())
        .contains("the function of replace_pattern is a converter's name, such as SHA256");
    for (String format : new String[] {"\"%s-%s\"", "\"none\"", "\"%d %s\"", "\"%s %\""}) {
      assertThat(onlyProblem(prefix + "SHA256, " + format + ")'\n").message())
          .as(format)
          .endsWith(
              "the format of replace_pattern holds one %s, where the function's result goes, and"
                  + " no other %");
    }
    assertThat(
            onlyProblem(
                    "trace_statements:\n  - 'replace_match(span.name, \"x\", \"y\", SHA1, \"%s\","
                        + " \"more\")'\n")
                .message())
        .contains("replace_match takes 3 to 5 arguments");
  }

  @Test
  void refusesFlattenDataSayingWhyAndTakesItsDefault() throws ConfigException {
    ConfigProblem problem =
        onlyProblem("flatten_data: true\nlog_statements:\n  - 'set(log.body, \"x\")'\n");
    assertThat(problem.path()).isEqualTo("flatten_data");
    assertThat(problem.message())
        .startsWith("flatten_data: true is not supported by this build")
        .contains("a record cannot have a copy of its own");
    assertThat(Harness.bind("flatten_data: false\n").flattenData()).isFalse();
    assertThat(
            onlyProblem(
                    "log_statements:\n  - context: log\n    flatten: true\n"
                        + "    statements: ['set(body, \"x\")']\n")
                .path())
        .isEqualTo("log_statements[0].flatten");
  }

  @Test
  void refusesAWrongLiteralArgument() {
    assertThat(onlyProblem("trace_statements:\n  - 'limit(span.attributes, -1, [])'\n").message())
        .endsWith("the limit of limit cannot be negative");
    assertThat(
            onlyProblem(
                    "trace_statements:\n  - 'replace_all_patterns(span.attributes, \"both\", \"a\", \"b\")'\n")
                .message())
        .contains("the mode of replace_all_patterns is \"key\" or \"value\"");
    assertThat(
            onlyProblem("trace_statements:\n  - 'keep_keys(span.attributes, \"a\")'\n").message())
        .contains("must be a list of string literals");
  }
}
