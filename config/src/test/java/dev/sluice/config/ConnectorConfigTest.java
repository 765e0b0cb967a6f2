package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorFactory;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.config.fixtures.DebugExporterFactory;
import dev.sluice.config.fixtures.OtlpReceiverFactory;
import dev.sluice.pdata.Signal;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code connectors} section and connectors in pipelines' lists: the pairs of signals a
 * connector joins, one-sided use and cycles are errors at the id that shows them.
 */
class ConnectorConfigTest {
  private static final String SECTIONS =
      """
      receivers:
        otlp:
          protocols:
            grpc:
      exporters:
        debug:
      connectors:
        forward:
        forward/2:
        count:
      """;

  private final ConfigLoader loader = new ConfigLoader();

  private List<String> problems(String pipelines) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> load(pipelines));
    assertThat(e).as("loading should fail").isNotNull();
    return e.problems().stream().map(ConfigProblem::toString).toList();
  }

  /** {@link #SECTIONS} (lines 1-10) with {@code pipelines} from line 13 on, four spaces in. */
  private CollectorConfig load(String pipelines) throws ConfigException {
    return loader.load(SECTIONS + "service:\n  pipelines:\n" + pipelines.indent(4), "config.yaml");
  }

  @Test
  void aConnectorJoinsPipelinesAndIsUsed() throws ConfigException {
    CollectorConfig config =
        load(
            """
            traces/in: {receivers: [otlp], exporters: [forward]}
            traces/out: {receivers: [forward], exporters: [debug]}
            metrics: {receivers: [count], exporters: [debug]}
            logs: {receivers: [otlp], exporters: [count]}
            """);
    assertThat(config.used(ComponentKind.CONNECTOR))
        .extracting(c -> c.id().toString())
        .containsExactly("forward", "count");
    assertThat(config.unused()).extracting(c -> c.id().toString()).containsExactly("forward/2");
    assertThat(config.pipelines().get(0).exporters()).containsExactly(ComponentId.parse("forward"));
    assertThat(config.pipelines().get(1).receivers()).containsExactly(ComponentId.parse("forward"));
    assertThat(config.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "config.yaml:9:3: connectors.forward/2: is configured but no pipeline uses it, so it"
                + " is not started");
  }

  @Test
  void aConnectorListedAsAnExporterOnlyIsAnErrorWhereItIsListed() {
    assertThat(problems("traces: {receivers: [otlp], exporters: [debug, forward]}\n"))
        .containsExactly(
            "config.yaml:13:52: service.pipelines.traces.exporters: connector \"forward\" is an"
                + " exporter of traces but no pipeline it can feed lists it among its receivers"
                + " (it connects traces to traces, metrics to metrics, logs to logs)");
  }

  @Test
  void aConnectorListedAsAReceiverOnlyIsAnErrorWhereItIsListed() {
    assertThat(problems("metrics: {receivers: [otlp, count], exporters: [debug]}\n"))
        .containsExactly(
            "config.yaml:13:33: service.pipelines.metrics.receivers: connector \"count\" is a"
                + " receiver of metrics but no pipeline it can take data from lists it among its"
                + " exporters (it connects traces to metrics, metrics to metrics, logs to"
                + " metrics)");
  }

  @Test
  void aPairOfSignalsTheConnectorDoesNotJoinIsAnError() {
    assertThat(
            problems(
                """
                traces: {receivers: [otlp], exporters: [forward]}
                logs: {receivers: [forward], exporters: [debug]}
                """))
        .containsExactly(
            "config.yaml:13:45: service.pipelines.traces.exporters: connector \"forward\" is an"
                + " exporter of traces but no pipeline it can feed lists it among its receivers"
                + " (it connects traces to traces, metrics to metrics, logs to logs)");
  }

  @Test
  void aCycleThroughConnectorsIsAnErrorNamingEveryStep() {
    assertThat(
            problems(
                """
                traces/a: {receivers: [otlp, forward/2], exporters: [forward]}
                traces/b: {receivers: [forward], exporters: [debug, forward/2]}
                """))
        .containsExactly(
            "config.yaml:14:57: service.pipelines.traces/b.exporters: connectors make a cycle,"
                + " data would come back to a pipeline it left: traces/a -> connector \"forward\""
                + " -> traces/b -> connector \"forward/2\" -> traces/a");
  }

  @Test
  void aPipelineFeedingItselfIsACycle() {
    assertThat(problems("traces: {receivers: [otlp, forward], exporters: [forward]}\n"))
        .containsExactly(
            "config.yaml:13:54: service.pipelines.traces.exporters: connectors make a cycle, data"
                + " would come back to a pipeline it left: traces -> connector \"forward\" ->"
                + " traces");
  }

  @Test
  void anUnknownConnectorTypeIsNotAvailable() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                loader.load(
                    SECTIONS
                        + "  spanmetrics:\n"
                        + "service:\n  pipelines:\n"
                        + "    traces: {receivers: [otlp], exporters: [debug]}\n",
                    "config.yaml"));
    assertThat(e.problems())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "config.yaml:11:3: connectors.spanmetrics: connector type \"spanmetrics\" is not"
                + " available in this build");
  }

  @Test
  void aConnectorIsNotAProcessor() {
    assertThat(problems("traces: {receivers: [otlp], processors: [forward], exporters: [debug]}\n"))
        .containsExactly(
            "config.yaml:13:46: service.pipelines.traces: references processor \"forward\" which"
                + " is not configured");
  }

  /** A connector type whose key names pipelines: {@code pipelines} must be among those it feeds. */
  private static final class PickConnectorFactory
      implements ConnectorFactory<PickConnectorFactory.Config> {
    record Config(List<String> pipelines) implements ComponentConfig {}

    @Override
    public String type() {
      return "pick";
    }

    @Override
    public Class<Config> configType() {
      return Config.class;
    }

    @Override
    public Config defaultConfig() {
      return new Config(List.of());
    }

    @Override
    public boolean supports(Signal from, Signal to) {
      return from == to;
    }

    @Override
    public void validatePipelines(
        Config config, Signal from, Signal to, List<String> fed, ConfigProblems problems) {
      for (int i = 0; i < config.pipelines().size(); i++) {
        if (!fed.contains(config.pipelines().get(i))) {
          problems.under("pipelines").item(i).add("", "is not a pipeline it feeds");
        }
      }
    }

    @Override
    public Connector create(
        ComponentSettings settings, Config config, Signal from, Signal to, ConnectorOutput output) {
      throw new UnsupportedOperationException("test factory");
    }
  }

  @Test
  void aConnectorChecksItsKeysAgainstThePipelinesItFeedsAtTheirPlaceOncePerProblem() {
    ConfigLoader picking =
        new ConfigLoader()
            .withRegistry(
                ComponentRegistry.of(
                    List.of(
                        new OtlpReceiverFactory(),
                        new DebugExporterFactory(),
                        new PickConnectorFactory())));
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                picking.load(
                    """
                    receivers:
                      otlp:
                        protocols:
                          grpc:
                    exporters:
                      debug:
                    connectors:
                      pick:
                        pipelines: [traces/out, nowhere]
                    service:
                      pipelines:
                        traces/in: {receivers: [otlp], exporters: [pick]}
                        traces/out: {receivers: [pick], exporters: [debug]}
                        logs/in: {receivers: [otlp], exporters: [pick]}
                        logs/out: {receivers: [pick], exporters: [debug]}
                    """,
                    "config.yaml"));
    assertThat(e).isNotNull();
    assertThat(e.problems())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "config.yaml:9:17: connectors.pick.pipelines[0]: is not a pipeline it feeds",
            "config.yaml:9:29: connectors.pick.pipelines[1]: is not a pipeline it feeds");
  }
}
