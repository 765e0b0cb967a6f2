package dev.sluice.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.ExporterFactory;
import dev.sluice.config.ComponentRegistry;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigLoader;
import dev.sluice.config.ConfigProblem;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.TestComponents;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The pipelines a routing table names, checked when the file is read against the pipelines that
 * list the connector among their receivers, at the name's line and column.
 */
class RoutingPipelinesConfigTest {
  /** An exporter type with no keys. */
  record NoKeys() implements ExporterConfig {}

  private static final ExporterFactory<NoKeys> EXPORTERS =
      new ExporterFactory<>() {
        @Override
        public String type() {
          return "sink";
        }

        @Override
        public Class<NoKeys> configType() {
          return NoKeys.class;
        }

        @Override
        public NoKeys defaultConfig() {
          return new NoKeys();
        }

        @Override
        public Set<Signal> signals() {
          return EnumSet.allOf(Signal.class);
        }

        @Override
        public Exporter create(ComponentSettings settings, NoKeys config) {
          throw new UnsupportedOperationException("configuration tests only");
        }
      };

  private final ConfigLoader loader =
      new ConfigLoader()
          .withRegistry(
              ComponentRegistry.of(
                  List.of(
                      TestComponents.receivers(new TestComponents.Journal()),
                      EXPORTERS,
                      new RoutingConnectorFactory())));

  private static final String PIPELINES =
      """
      service:
        pipelines:
          traces/in: {receivers: [test], exporters: [routing]}
          traces/acme: {receivers: [routing], exporters: [sink]}
          traces/other: {receivers: [routing], exporters: [sink]}
          traces/direct: {receivers: [test], exporters: [sink]}
          logs/acme: {receivers: [test], exporters: [sink]}
      """;

  private List<String> problems(String routing) {
    String yaml =
        "receivers:\n  test:\nexporters:\n  sink:\nconnectors:\n  routing:\n"
            + routing.indent(4)
            + PIPELINES;
    ConfigException e =
        catchThrowableOfType(ConfigException.class, () -> loader.load(yaml, "c.yaml"));
    assertThat(e).as("loading should fail").isNotNull();
    return e.problems().stream().map(ConfigProblem::toString).toList();
  }

  @Test
  void aTableThatNamesPipelinesTheConnectorFeedsIsValid() throws ConfigException {
    String yaml =
        "receivers:\n  test:\nexporters:\n  sink:\nconnectors:\n  routing:\n"
            + """
                default_pipelines: [traces/other]
                table:
                  - condition: attributes["tenant"] == "acme"
                    pipelines: [traces/acme]
                  - context: span
                    condition: name == "x"
                    pipelines: [traces/acme, traces/other]
            """
            + PIPELINES;
    assertThat(loader.load(yaml, "c.yaml").pipelines()).hasSize(5);
  }

  @Test
  void aPipelineThatDoesNotListTheConnectorIsAnErrorWhereItIsNamed() {
    assertThat(
            problems(
                """
                default_pipelines: [traces/other, traces/missing]
                table:
                  - condition: attributes["tenant"] == "acme"
                    pipelines: [traces/acme, traces/direct]
                  - condition: attributes["tenant"] == "b"
                    pipelines: [logs/acme]
                """))
        .containsExactly(
            "c.yaml:7:39: connectors.routing.default_pipelines[1]: pipeline \"traces/missing\" is"
                + " not a traces pipeline that lists this connector among its receivers (those"
                + " are: traces/acme, traces/other)",
            "c.yaml:10:34: connectors.routing.table[0].pipelines[1]: pipeline \"traces/direct\" is"
                + " not a traces pipeline that lists this connector among its receivers (those"
                + " are: traces/acme, traces/other)",
            "c.yaml:12:21: connectors.routing.table[1].pipelines[0]: pipeline \"logs/acme\" is not"
                + " a traces pipeline that lists this connector among its receivers (those are:"
                + " traces/acme, traces/other)");
  }

  @Test
  void aContextWithNothingToMatchInTheSignalIsAnError() {
    assertThat(
            problems(
                """
                table:
                  - context: log
                    condition: severity_number > 9
                    pipelines: [traces/acme]
                  - context: datapoint
                    condition: value_int > 9
                    pipelines: [traces/acme]
                """))
        .containsExactly(
            "c.yaml:8:9: connectors.routing.table[0].context: the log context has nothing to"
                + " match in traces, so the route would never match: use resource or span",
            "c.yaml:11:9: connectors.routing.table[1].context: the datapoint context has nothing"
                + " to match in traces, so the route would never match: use resource or span");
  }
}
