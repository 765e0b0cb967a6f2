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

  @Test
  void withoutStorageNothingIsLogged() {
    DurableRouting none = DurableRouting.of(PIPELINES, id -> null);
    assertThat(none.storage()).isNull();
    assertThat(none.layout().pipelines()).isEmpty();
    assertThat(none.routing(ComponentId.parse("r"), Signal.TRACES)).isZero();
    assertThat(none.loggedInto(named("traces/a"))).isFalse();
  }
}
