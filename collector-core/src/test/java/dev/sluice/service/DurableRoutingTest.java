package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.pdata.Signal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The durable routing of five pipelines: receiver {@code r} feeds the durable {@code traces/b},
 * {@code traces/a} and {@code logs} and the plain {@code traces/plain}; receiver {@code q} feeds
 * only the plain {@code traces/other}. Exporters whose id starts with {@code d} have storage.
 */
class DurableRoutingTest {
  private static final List<PipelineSpec> PIPELINES =
      List.of(
          pipeline("traces/b", Signal.TRACES, "r", "d/b", "x"),
          pipeline("traces/a", Signal.TRACES, "r", "d/a"),
          pipeline("traces/plain", Signal.TRACES, "r", "x"),
          pipeline("logs", Signal.LOGS, "r", "d/logs"),
          pipeline("traces/other", Signal.TRACES, "q", "x"));

  private static final DurableRouting ROUTING =
      DurableRouting.of(PIPELINES, id -> id.toString().startsWith("d") ? "file_storage" : null);

  private static PipelineSpec pipeline(
      String name, Signal signal, String receiver, String... exporters) {
    return new PipelineSpec(
        name,
        signal,
        List.of(ComponentId.parse(receiver)),
        List.of(),
        List.of(exporters).stream().map(ComponentId::parse).toList());
  }

  private static PipelineSpec named(String name) {
    return PIPELINES.stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void durablePipelinesTakeRoutingBitsInTheOrderOfTheirNames() {
    assertThat(ROUTING.storage()).isEqualTo(ComponentId.parse("file_storage"));
    assertThat(ROUTING.layout().exportersOfPipeline())
        .containsExactly(
            Map.entry("logs", List.of("d/logs")),
            Map.entry("traces/a", List.of("d/a")),
            Map.entry("traces/b", List.of("d/b")));
    assertThat(ROUTING.isDurable(named("traces/a"))).isTrue();
    assertThat(ROUTING.isDurable(named("traces/plain"))).isFalse();
  }

  @Test
  void aReceiversRequestsOfASignalCarryTheBitsOfTheDurablePipelinesOfThatSignalListingIt() {
    assertThat(ROUTING.routing(ComponentId.parse("r"), Signal.TRACES)).isEqualTo(0b110);
    assertThat(ROUTING.routing(ComponentId.parse("r"), Signal.LOGS)).isEqualTo(0b001);
    assertThat(ROUTING.routing(ComponentId.parse("r"), Signal.METRICS)).isZero();
    assertThat(ROUTING.routing(ComponentId.parse("q"), Signal.TRACES)).isZero();
  }

  @Test
  void aPlainPipelineSharingAReceiverWithADurableOneIsLoggedInto() {
    assertThat(ROUTING.loggedInto(named("traces/plain"))).isTrue();
    assertThat(ROUTING.loggedInto(named("traces/b"))).isTrue();
    assertThat(ROUTING.loggedInto(named("traces/other"))).isFalse();
    // Consumers are the durable exporters' ids, sorted: d/a, d/b, d/logs.
    assertThat(ROUTING.consumersOf(named("traces/b"))).containsExactly(1, -1);
    assertThat(ROUTING.consumersOf(named("traces/plain"))).containsExactly(-1);
  }

  /**
   * Receiver {@code r} feeds {@code traces/in}, which ends in connector {@code link} (passes
   * requests on) feeding the durable {@code traces/out} and the plain {@code traces/side}; {@code
   * traces/out} also ends in {@code link/deeper}, feeding the durable {@code traces/deep}. Receiver
   * {@code q} feeds only the plain {@code traces/other}.
   */
  private static final List<PipelineSpec> JOINED =
      List.of(
          pipeline("traces/in", Signal.TRACES, "r", "x", "link"),
          joined("traces/out", "link", "d/out", "link/deeper"),
          joined("traces/side", "link", "x"),
          joined("traces/deep", "link/deeper", "d/deep"),
          pipeline("traces/other", Signal.TRACES, "q", "x"));

  private static PipelineSpec joined(String name, String connector, String... exporters) {
    return pipeline(name, Signal.TRACES, connector, exporters);
  }

  private static DurableRouting joinedRouting() {
    PipelineTopology topology =
        PipelineTopology.of(
            JOINED,
            Map.of(
                ComponentId.parse("link"), (from, to) -> from == to,
                ComponentId.parse("link/deeper"), (from, to) -> from == to));
    return DurableRouting.of(
        JOINED, id -> id.toString().startsWith("d") ? "file_storage" : null, topology, id -> true);
  }

  @Test
  void aPipelineIsDurableWhenItPassesRequestsOnToADurableExporterBehindConnectors() {
    DurableRouting routing = joinedRouting();
    // Each durable pipeline with the durable exporters it reaches: its own, then those behind.
    assertThat(routing.layout().exportersOfPipeline())
        .containsExactly(
            Map.entry("traces/deep", List.of("d/deep")),
            Map.entry("traces/in", List.of("d/out", "d/deep")),
            Map.entry("traces/out", List.of("d/out", "d/deep")));
    // The requests of r carry the bit of traces/in, where they enter, and owe both exporters.
    assertThat(routing.routing(ComponentId.parse("r"), Signal.TRACES)).isEqualTo(0b010);
    assertThat(routing.layout().consumersOfRouting(0b010)).isEqualTo(0b11);
    assertThat(routing.routing(ComponentId.parse("q"), Signal.TRACES)).isZero();
  }

  @Test
  void everyPipelineLoggedRequestsReachThroughConnectorsKeepsTheExportersProgress() {
    DurableRouting routing = joinedRouting();
    for (String name : List.of("traces/in", "traces/out", "traces/side", "traces/deep")) {
      assertThat(routing.loggedInto(joinedNamed(name))).as(name).isTrue();
    }
    assertThat(routing.loggedInto(joinedNamed("traces/other"))).isFalse();
    // Consumers d/deep = 0, d/out = 1; connectors are not among a pipeline's exporters' consumers.
    assertThat(routing.consumersOf(joinedNamed("traces/in"))).containsExactly(-1);
    assertThat(routing.consumersOf(joinedNamed("traces/out"))).containsExactly(1);
  }

  @Test
  void aConnectorsConsumersAreTheDurableExportersOfThePipelinesBehindIt() {
    DurableRouting routing = joinedRouting();
    PipelineTopology topology =
        PipelineTopology.of(
            JOINED,
            Map.of(
                ComponentId.parse("link"), (from, to) -> from == to,
                ComponentId.parse("link/deeper"), (from, to) -> from == to));
    Map<String, Integer> behind = new java.util.TreeMap<>();
    topology
        .instances()
        .forEach(
            instance -> behind.put(instance.id().toString(), routing.consumersBehind(instance)));
    assertThat(behind).containsExactly(Map.entry("link", 0b11), Map.entry("link/deeper", 0b01));
  }

  @Test
  void aConnectorThatMakesDataCarriesNoLoggedRequestAndHasNoConsumersBehindIt() {
    PipelineTopology topology =
        PipelineTopology.of(
            JOINED,
            Map.of(
                ComponentId.parse("link"), (from, to) -> from == to,
                ComponentId.parse("link/deeper"), (from, to) -> from == to));
    DurableRouting routing =
        DurableRouting.of(
            JOINED,
            id -> id.toString().startsWith("d") ? "file_storage" : null,
            topology,
            id -> false);
    assertThat(routing.layout().pipelines()).containsExactly("traces/deep", "traces/out");
    assertThat(routing.routing(ComponentId.parse("r"), Signal.TRACES)).isZero();
    assertThat(routing.loggedInto(joinedNamed("traces/in"))).isFalse();
    topology
        .instances()
        .forEach(instance -> assertThat(routing.consumersBehind(instance)).isZero());
  }

  @Test
  void aConnectorThatSaysWhatItMadeFromCarriesDurabilityButNotTheLoggedRequests() {
    PipelineTopology topology =
        PipelineTopology.of(
            JOINED,
            Map.of(
                ComponentId.parse("link"), (from, to) -> from == to,
                ComponentId.parse("link/deeper"), (from, to) -> from == to));
    // Both connectors make data and say from which requests, as count does.
    DurableRouting routing =
        DurableRouting.of(
            JOINED,
            id -> id.toString().startsWith("d") ? "file_storage" : null,
            topology,
            id -> false,
            id -> true);
    assertThat(routing.layout().exportersOfPipeline())
        .containsExactly(
            Map.entry("traces/deep", List.of("d/deep")),
            Map.entry("traces/in", List.of("d/out", "d/deep")),
            Map.entry("traces/out", List.of("d/out", "d/deep")));
    // r logs, where its requests enter; what reaches the pipelines behind is new data.
    assertThat(routing.routing(ComponentId.parse("r"), Signal.TRACES)).isEqualTo(0b010);
    assertThat(routing.loggedInto(joinedNamed("traces/in"))).isTrue();
    assertThat(routing.loggedInto(joinedNamed("traces/out"))).isFalse();
    Map<String, Integer> behind = new java.util.TreeMap<>();
    topology
        .instances()
        .forEach(
            instance -> behind.put(instance.id().toString(), routing.consumersBehind(instance)));
    assertThat(behind).containsExactly(Map.entry("link", 0b11), Map.entry("link/deeper", 0b01));
  }

  private static PipelineSpec joinedNamed(String name) {
    return JOINED.stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void withoutStorageNothingIsLogged() {
    DurableRouting none = DurableRouting.of(PIPELINES, id -> null);
    assertThat(none.storage()).isNull();
    assertThat(none.layout().pipelines()).isEmpty();
    assertThat(none.routing(ComponentId.parse("r"), Signal.TRACES)).isZero();
    assertThat(none.loggedInto(named("traces/a"))).isFalse();
  }
}
