package dev.sluice.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import dev.sluice.ottl.ErrorMode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The connector's own keys: defaults, and every problem at its place in the file. */
class RoutingConfigTest {
  private static List<String> problems(String yaml) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Otlp.config(yaml));
    assertThat(e).as("binding should fail").isNotNull();
    return e.problems().stream().map(ConfigProblem::toString).toList();
  }

  @Test
  void bindsTheCollectorsKeysWithItsDefaults() throws ConfigException {
    RoutingConfig config =
        Otlp.config(
            """
            default_pipelines: [traces/other]
            table:
              - condition: attributes["tenant"] == "acme"
                pipelines: [traces/acme, traces/audit]
              - context: span
                statement: route() where name == "GET /"
                action: copy
                pipelines: [traces/root]
            """);
    assertThat(config.errorMode()).isEqualTo(ErrorMode.PROPAGATE);
    assertThat(config.defaultPipelines()).containsExactly("traces/other");
    RoutingConfig.Route first = config.table().get(0);
    assertThat(first.context()).isEqualTo("resource");
    assertThat(first.action()).isEqualTo(RoutingConfig.Action.MOVE);
    assertThat(first.pipelines()).containsExactly("traces/acme", "traces/audit");
    assertThat(config.table().get(1).action()).isEqualTo(RoutingConfig.Action.COPY);
  }

  @Test
  void anEmptyTableIsAnError() {
    assertThat(problems("default_pipelines: [traces/a]\n"))
        .containsExactly("routing.yaml:1:1: table: must have at least one route");
  }

  @Test
  void reportsEveryBadRouteAtItsKey() {
    assertThat(
            problems(
                """
                error_mode: ignore
                table:
                  - condition: attributes["a"] == "b"
                    statement: route() where attributes["a"] == "b"
                    pipelines: [traces/a]
                  - pipelines: [traces/a]
                  - condition: attributes["a"] == "b"
                  - context: spans
                    condition: attributes["a"] == "b"
                    pipelines: [traces/a]
                  - context: request
                    condition: request["X-Tenant"] = "acme"
                    pipelines: [traces/a]
                  - context: request
                    statement: route() where request["X-Tenant"] == "acme"
                    pipelines: [traces/a]
                  - context: request
                    condition: request[""] == "acme"
                    pipelines: [traces/a]
                  - context: request
                    condition: request["X-Tenant"] == "acme"
                    pipelines: [traces/a]
                """))
        .containsExactly(
            "routing.yaml:4:5: table[0].statement: give condition or statement, not both",
            "routing.yaml:6:5: table[1]: needs a condition or a statement",
            "routing.yaml:7:5: table[2].pipelines: must name at least one pipeline",
            "routing.yaml:8:5: table[3].context: invalid context \"spans\": one of resource,"
                + " span, metric, datapoint, log, request",
            "routing.yaml:12:5: table[4].condition: invalid request condition: "
                + RouteCondition.REQUEST_GRAMMAR,
            "routing.yaml:15:5: table[5].statement: the request context takes a condition, not a"
                + " statement: "
                + RouteCondition.REQUEST_GRAMMAR,
            "routing.yaml:18:5: table[6].condition: invalid request condition: the metadata key is"
                + " empty");
  }

  @Test
  void anUnknownActionIsAnErrorAtItsKey() {
    assertThat(
            problems(
                """
                table:
                  - condition: attributes["a"] == "b"
                    action: fork
                    pipelines: [traces/a]
                """))
        .singleElement()
        .asString()
        .startsWith("routing.yaml:3:5: table[0].action:")
        .contains("one of move, copy");
  }

  @Test
  void placesAnOttlErrorAtItsKeyWithItsColumnInTheConditionOrStatement() {
    assertThat(
            problems(
                """
                table:
                  - context: span
                    condition: attributes["a"] == "b" and nmae == "c"
                    pipelines: [traces/a]
                  - context: span
                    statement: route() where attributes["a"] == "b" and nmae == "c"
                    pipelines: [traces/a]
                  - context: log
                    condition: severity_number >= SEVERITY_NUMBER_NOPE
                    pipelines: [traces/a]
                """))
        .satisfiesExactly(
            p ->
                assertThat(p)
                    .startsWith(
                        "routing.yaml:3:5: table[0].condition: invalid OTTL condition at column"
                            + " 28: unknown path 'nmae'"),
            p ->
                assertThat(p)
                    .startsWith(
                        "routing.yaml:6:5: table[1].statement: invalid OTTL statement at column"
                            + " 42: unknown path 'nmae'"),
            p -> assertThat(p).startsWith("routing.yaml:9:5: table[2].condition: invalid OTTL"));
  }

  @Test
  void aStatementMustCallRoute() {
    assertThat(
            problems(
                """
                table:
                  - statement: delete_key(attributes, "tenant") where attributes["tenant"] == "a"
                    pipelines: [traces/a]
                  - statement: route() when attributes["tenant"] == "a"
                    pipelines: [traces/a]
                """))
        .containsExactly(
            "routing.yaml:2:5: table[0].statement: a routing statement is route() where"
                + " <condition>, or route() alone; editors such as delete_key() are not supported"
                + " here",
            "routing.yaml:4:5: table[1].statement: invalid OTTL statement at column 9: expected"
                + " where and a condition after route()");
  }

  @Test
  void aConditionSpanningLinesIsPlacedByLineInTheStatement() {
    assertThat(
            problems(
                """
                table:
                  - context: span
                    statement: |-
                      route()
                        where attributes["a"] == "b"
                        and nmae == "c"
                    pipelines: [traces/a]
                """))
        .singleElement()
        .asString()
        .startsWith(
            "routing.yaml:3:5: table[0].statement: invalid OTTL statement at line 3, column 7:"
                + " unknown path 'nmae'");
  }
}
