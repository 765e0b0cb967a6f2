package dev.sluice.connector.routing;

import static dev.sluice.connector.routing.Otlp.resourceSpans;
import static dev.sluice.connector.routing.Otlp.scopeSpans;
import static dev.sluice.connector.routing.Otlp.span;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.connector.routing.Otlp.Routing;
import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import org.junit.jupiter.api.Test;

/** Routing spans by resource and by span: what moves as one, and where unmatched spans go. */
class TracesRoutingTest {
  /** Three resource blocks (shop, cart, shop), each with two scopes of two spans. */
  private static byte[] request() {
    return Otlp.traces(
        resourceSpans(
            "shop",
            scopeSpans("http", span("s1", "acme"), span("s2", "globex")),
            scopeSpans("db", span("s3", "acme"), span("s4", "acme"))),
        resourceSpans(
            "cart",
            scopeSpans("http", span("c1", "globex"), span("c2", "acme")),
            scopeSpans("db", span("c3", "globex"), span("c4", "globex"))),
        resourceSpans(
            "shop",
            scopeSpans("http", span("s5", "globex"), span("s6", "globex")),
            scopeSpans("db", span("s7", "acme"), span("s8", "acme"))));
  }

  @Test
  void resourceRoutesMoveWholeResourceBlocks() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            table:
              - condition: attributes["service.name"] == "shop"
                pipelines: [traces/shop]
              - condition: attributes["service.name"] == "cart"
                pipelines: [traces/cart]
            """,
            "traces/shop",
            "traces/cart");

    assertThat(routing.route(request())).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.spans("traces/shop"))
        .containsExactly(
            "shop/http/s1",
            "shop/http/s2",
            "shop/db/s3",
            "shop/db/s4",
            "shop/http/s5",
            "shop/http/s6",
            "shop/db/s7",
            "shop/db/s8");
    assertThat(routing.spans("traces/cart"))
        .containsExactly("cart/http/c1", "cart/http/c2", "cart/db/c3", "cart/db/c4");
    // One batch per target, the resource block as the client sent it (its schema URL included).
    ExportTraceServiceRequest cart = routing.traces("traces/cart").get(0);
    assertThat(routing.traces("traces/cart")).hasSize(1);
    ResourceSpans block = cart.getResourceSpans(0);
    assertThat(block).isEqualTo(ExportTraceServiceRequest.parseFrom(request()).getResourceSpans(1));
  }

  @Test
  void aResourceRouteIsDecidedOncePerResourceBlock() throws Exception {
    // The condition fails for every resource (Substring past the end): counted once per block.
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            error_mode: ignore
            default_pipelines: [traces/other]
            table:
              - condition: Substring(attributes["service.name"], 10, 2) == "x"
                pipelines: [traces/x]
            """,
            "traces/x",
            "traces/other");

    assertThat(routing.route(request())).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.counter("sluice_connector_routing_condition_errors")).isEqualTo(3);
    assertThat(routing.spans("traces/other")).hasSize(12);
    assertThat(routing.output.pipeline("traces/x").offers()).isZero();
  }

  @Test
  void spanRoutesSplitBlocksAndEachPartKeepsItsResourceAndScope() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            default_pipelines: [traces/globex]
            table:
              - context: span
                condition: attributes["tenant"] == "acme"
                pipelines: [traces/acme]
            """,
            "traces/acme",
            "traces/globex");

    assertThat(routing.route(request())).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.spans("traces/acme"))
        .containsExactly(
            "shop/http/s1", "shop/db/s3", "shop/db/s4", "cart/http/c2", "shop/db/s7", "shop/db/s8");
    assertThat(routing.spans("traces/globex"))
        .containsExactly(
            "shop/http/s2",
            "cart/http/c1",
            "cart/db/c3",
            "cart/db/c4",
            "shop/http/s5",
            "shop/http/s6");
    ResourceSpans first = routing.traces("traces/acme").get(0).getResourceSpans(0);
    assertThat(first.getSchemaUrl()).isEqualTo("https://opentelemetry.io/schemas/1.26.0");
    assertThat(first.getScopeSpans(0).getScope()).isEqualTo(Otlp.scope("http"));
  }

  @Test
  void anItemGoesToTheFirstRouteItMatchesOnly() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            table:
              - context: span
                condition: attributes["tenant"] == "acme"
                pipelines: [traces/acme]
              - condition: attributes["service.name"] == "shop"
                pipelines: [traces/shop]
              - context: span
                statement: route()
                pipelines: [traces/rest]
            """,
            "traces/acme",
            "traces/shop",
            "traces/rest");

    assertThat(routing.route(request())).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.spans("traces/acme"))
        .containsExactly(
            "shop/http/s1", "shop/db/s3", "shop/db/s4", "cart/http/c2", "shop/db/s7", "shop/db/s8");
    assertThat(routing.spans("traces/shop"))
        .containsExactly("shop/http/s2", "shop/http/s5", "shop/http/s6");
    assertThat(routing.spans("traces/rest"))
        .containsExactly("cart/http/c1", "cart/db/c3", "cart/db/c4");
  }

  @Test
  void copyRoutesHandDataOnAndLaterRoutesStillSeeIt() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            default_pipelines: [traces/other]
            table:
              - statement: route() where attributes["service.name"] == "cart"
                action: copy
                pipelines: [traces/archive]
              - context: span
                condition: attributes["tenant"] == "acme"
                pipelines: [traces/acme]
              - context: span
                condition: name == "s2" or name == "c1"
                action: copy
                pipelines: [traces/archive]
            """,
            "traces/archive",
            "traces/acme",
            "traces/other");

    assertThat(routing.route(request())).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.spans("traces/acme"))
        .containsExactly(
            "shop/http/s1", "shop/db/s3", "shop/db/s4", "cart/http/c2", "shop/db/s7", "shop/db/s8");
    assertThat(routing.spans("traces/other"))
        .containsExactly(
            "shop/http/s2",
            "cart/http/c1",
            "cart/db/c3",
            "cart/db/c4",
            "shop/http/s5",
            "shop/http/s6");
    // Every cart span by the first route; s2 by the third (c1, already copied, is copied again,
    // as the Collector copies it once per route that matches it).
    assertThat(routing.spans("traces/archive"))
        .containsExactlyInAnyOrder(
            "cart/http/c1",
            "cart/http/c2",
            "cart/db/c3",
            "cart/db/c4",
            "shop/http/s2",
            "cart/http/c1");
  }

  @Test
  void spansThatMatchNoRouteGoToTheDefaultPipelines() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            default_pipelines: [traces/other, traces/audit]
            table:
              - condition: attributes["service.name"] == "cart"
                pipelines: [traces/cart, traces/audit]
            """,
            "traces/cart",
            "traces/other",
            "traces/audit");

    assertThat(routing.route(request())).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.spans("traces/cart")).hasSize(4);
    assertThat(routing.spans("traces/other")).hasSize(8).allMatch(s -> s.startsWith("shop/"));
    assertThat(routing.spans("traces/audit")).hasSize(12);
    assertThat(routing.counter("sluice_connector_routing_unrouted_spans")).isZero();
  }

  @Test
  void withoutDefaultPipelinesUnmatchedSpansAreDroppedAndCounted() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            table:
              - condition: attributes["service.name"] == "cart"
                pipelines: [traces/cart]
            """,
            "traces/cart",
            "traces/unused");

    assertThat(routing.route(request())).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.spans("traces/cart")).hasSize(4);
    assertThat(routing.output.pipeline("traces/unused").offers()).isZero();
    assertThat(routing.counter("sluice_connector_routing_unrouted_spans")).isEqualTo(8);
  }

  @Test
  void routesThatNameTheSamePipelinesHandThemOneBatch() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            default_pipelines: [traces/a]
            table:
              - context: span
                condition: attributes["tenant"] == "acme"
                pipelines: [traces/a, traces/b]
              - condition: attributes["service.name"] == "cart"
                pipelines: [traces/b, traces/a]
            """,
            "traces/a",
            "traces/b");

    assertThat(routing.route(request())).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.output.pipeline("traces/a").offers()).isEqualTo(2);
    assertThat(routing.output.pipeline("traces/b").offers()).isEqualTo(1);
    assertThat(routing.spans("traces/b")).hasSize(6 + 3);
    assertThat(routing.spans("traces/a")).hasSize(12);
  }

  @Test
  void aRepeatedRouteIsIgnoredWithItsActionAndPipelines() throws Exception {
    // As in the Collector: the second route repeats the first's context and statement (a
    // condition is the statement "route() where" it), so it is left out, action and all.
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            default_pipelines: [traces/other]
            table:
              - condition: attributes["service.name"] == "cart"
                action: copy
                pipelines: [traces/first]
              - statement: route() where attributes["service.name"] == "cart"
                pipelines: [traces/second]
            """,
            "traces/first",
            "traces/second",
            "traces/other");

    assertThat(routing.route(request())).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.spans("traces/first")).hasSize(4);
    assertThat(routing.output.pipeline("traces/second").offers()).isZero();
    assertThat(routing.spans("traces/other")).hasSize(12);
  }
}
