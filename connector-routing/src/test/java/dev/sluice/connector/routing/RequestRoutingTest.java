package dev.sluice.connector.routing;

import static dev.sluice.connector.routing.Otlp.resourceSpans;
import static dev.sluice.connector.routing.Otlp.scopeSpans;
import static dev.sluice.connector.routing.Otlp.span;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.connector.routing.Otlp.Routing;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.RequestMetadata;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@code request} context: a route decided on the metadata each request came with, for all of
 * that request's data, however the requests were batched together.
 */
class RequestRoutingTest {
  /**
   * A request of one resource block ({@code service}) with two spans, sent with {@code headers}.
   */
  private static OtlpIndex request(String service, Map<String, List<String>> headers)
      throws Exception {
    OtlpIndex request =
        new OtlpIndexer()
            .index(
                Signal.TRACES,
                Otlp.traces(
                    resourceSpans(
                        service,
                        scopeSpans(
                            "http", span(service + "1", "acme"), span(service + "2", "x")))));
    request.metadata(RequestMetadata.of(headers));
    return request;
  }

  /** Three requests in one batch: tenant acme, tenant globex (and acme, sent twice), none. */
  private static Batch batch() throws Exception {
    Batch batch = new Batch(Signal.TRACES);
    batch.add(request("a", Map.of("X-Tenant", List.of("acme"))));
    batch.add(request("g", Map.of("x-tenant", List.of("globex", "acme"), "other", List.of("1"))));
    batch.add(request("n", Map.of()));
    return batch;
  }

  @Test
  void aRequestRouteTakesEveryItemOfTheRequestsWhoseMetadataMatches() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            default_pipelines: [traces/other]
            table:
              - context: request
                condition: request["X-TENANT"] == "acme"
                pipelines: [traces/acme]
            """,
            "traces/acme",
            "traces/other");

    assertThat(routing.route(batch())).isEqualTo(Admission.ACCEPTED);

    // The key matches in any case; a request matches when any of its values does.
    assertThat(routing.spans("traces/acme"))
        .containsExactly("a/http/a1", "a/http/a2", "g/http/g1", "g/http/g2");
    assertThat(routing.spans("traces/other")).containsExactly("n/http/n1", "n/http/n2");
  }

  @Test
  void notEqualMatchesARequestWithSomeOtherValueButNotOneWithoutTheKey() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            default_pipelines: [traces/other]
            table:
              - context: request
                condition: request["x-tenant"] != "acme"
                pipelines: [traces/elsewhere]
            """,
            "traces/elsewhere",
            "traces/other");

    assertThat(routing.route(batch())).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.spans("traces/elsewhere")).containsExactly("g/http/g1", "g/http/g2");
    assertThat(routing.spans("traces/other"))
        .containsExactly("a/http/a1", "a/http/a2", "n/http/n1", "n/http/n2");
  }

  @Test
  void requestRoutesKeepTheirPlaceAmongTheOtherRoutes() throws Exception {
    // An earlier span route takes its spans first; a copy request route lets later routes see all.
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            default_pipelines: [traces/other]
            table:
              - context: span
                condition: name == "a1"
                pipelines: [traces/first]
              - context: request
                condition: request["x-tenant"] == "globex"
                action: copy
                pipelines: [traces/audit]
              - context: request
                condition: request["x-tenant"] == "acme"
                pipelines: [traces/acme]
            """,
            "traces/first",
            "traces/audit",
            "traces/acme",
            "traces/other");

    assertThat(routing.route(batch())).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.spans("traces/first")).containsExactly("a/http/a1");
    assertThat(routing.spans("traces/audit")).containsExactly("g/http/g1", "g/http/g2");
    assertThat(routing.spans("traces/acme")).containsExactly("a/http/a2", "g/http/g1", "g/http/g2");
    assertThat(routing.spans("traces/other")).containsExactly("n/http/n1", "n/http/n2");
  }

  @Test
  void dataWithoutMetadataMatchesNoRequestRoute() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            default_pipelines: [traces/other]
            table:
              - context: request
                condition: request["x-tenant"] != "nobody"
                pipelines: [traces/tenants]
            """,
            "traces/tenants",
            "traces/other");
    Batch batch =
        Otlp.batch(
            Signal.TRACES, Otlp.traces(resourceSpans("b", scopeSpans("h", span("b1", "t")))));

    assertThat(routing.connector.consume(batch)).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.spans("traces/tenants")).isEmpty();
    assertThat(routing.spans("traces/other")).containsExactly("b/h/b1");
  }
}
