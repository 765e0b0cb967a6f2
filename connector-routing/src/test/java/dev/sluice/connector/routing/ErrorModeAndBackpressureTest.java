package dev.sluice.connector.routing;

import static dev.sluice.connector.routing.Otlp.resourceSpans;
import static dev.sluice.connector.routing.Otlp.scopeSpans;
import static dev.sluice.connector.routing.Otlp.span;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.connector.routing.Otlp.Routing;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpMarshaler;
import org.junit.jupiter.api.Test;

/**
 * A condition that fails under each error mode, and a target that refuses: the caller's batch is
 * left as it was, and what a retry delivers.
 */
class ErrorModeAndBackpressureTest {
  private static byte[] request() {
    return Otlp.traces(
        resourceSpans("shop", scopeSpans("http", span("s1", "acme"), span("s2", "globex"))),
        resourceSpans("cart", scopeSpans("http", span("c1", "acme"), span("c2", "x"))));
  }

  /** Span routes whose first condition fails for spans with a short tenant. */
  private static String failing(String errorMode) {
    return """
        error_mode: %s
        default_pipelines: [traces/other]
        table:
          - context: span
            condition: Substring(attributes["tenant"], 0, 4) == "acme"
            pipelines: [traces/acme]
          - context: span
            condition: attributes["tenant"] == "x"
            pipelines: [traces/x]
        """
        .formatted(errorMode);
  }

  @Test
  void underPropagateAFailingConditionRefusesTheBatchAsFailedAndDeliversNothing() throws Exception {
    Routing routing =
        new Routing(Signal.TRACES, failing("propagate"), "traces/acme", "traces/x", "traces/other");
    Batch batch = Otlp.batch(Signal.TRACES, request());
    byte[] before = OtlpMarshaler.toByteArray(batch);

    assertThat(routing.connector.consume(batch)).isEqualTo(Admission.FAILED);

    assertThat(OtlpMarshaler.toByteArray(batch)).isEqualTo(before);
    assertThat(batch.unitCount()).isEqualTo(4);
    batch.clear();
    for (String pipeline : routing.output.pipelines()) {
      assertThat(routing.output.pipeline(pipeline).offers()).as(pipeline).isZero();
    }
    assertThat(routing.counter("sluice_connector_routing_condition_errors")).isEqualTo(1);
  }

  @Test
  void underIgnoreOrSilentAFailingConditionCountsAsNotMatched() throws Exception {
    for (String mode : new String[] {"ignore", "silent"}) {
      Routing routing =
          new Routing(Signal.TRACES, failing(mode), "traces/acme", "traces/x", "traces/other");

      Batch batch = Otlp.batch(Signal.TRACES, request());
      assertThat(routing.connector.consume(batch)).as(mode).isEqualTo(Admission.ACCEPTED);

      // c2 ("x") fails the first route and matches the second; s1 and c1 match the first.
      assertThat(routing.spans("traces/acme"))
          .as(mode)
          .containsExactly("shop/http/s1", "cart/http/c1");
      assertThat(routing.spans("traces/x")).as(mode).containsExactly("cart/http/c2");
      assertThat(routing.spans("traces/other")).as(mode).containsExactly("shop/http/s2");
      assertThat(routing.counter("sluice_connector_routing_condition_errors"))
          .as(mode)
          .isEqualTo(1);
    }
  }

  @Test
  void aRefusedPartRefusesTheBatchUnchangedAndTheRetryDeliversAtLeastOnce() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            table:
              - condition: attributes["service.name"] == "shop"
                pipelines: [traces/shop]
              - condition: attributes["service.name"] == "cart"
                pipelines: [traces/cart]
              - context: span
                condition: attributes["tenant"] == "none"
                pipelines: [traces/none]
            """,
            "traces/shop",
            "traces/cart",
            "traces/none");
    routing.output.pipeline("traces/cart").answer(Admission.FULL);
    Batch batch = Otlp.batch(Signal.TRACES, request());
    byte[] before = OtlpMarshaler.toByteArray(batch);

    assertThat(routing.connector.consume(batch)).isEqualTo(Admission.FULL);

    // The caller still holds the whole batch, as it was; the shop part was taken.
    assertThat(OtlpMarshaler.toByteArray(batch)).isEqualTo(before);
    assertThat(batch.unitCount()).isEqualTo(4);
    assertThat(routing.spans("traces/shop")).containsExactly("shop/http/s1", "shop/http/s2");
    assertThat(routing.spans("traces/cart")).isEmpty();
    assertThat(routing.output.pipeline("traces/none").offers()).isZero();

    // The sender retries the same batch: every target gets its part, shop a second time.
    assertThat(routing.connector.consume(batch)).isEqualTo(Admission.ACCEPTED);
    assertThat(routing.spans("traces/cart")).containsExactly("cart/http/c1", "cart/http/c2");
    assertThat(routing.spans("traces/shop"))
        .containsExactly("shop/http/s1", "shop/http/s2", "shop/http/s1", "shop/http/s2");
  }

  @Test
  void unroutedDataIsCountedOnceWhenTheBatchIsFinallyAccepted() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            table:
              - condition: attributes["service.name"] == "cart"
                pipelines: [traces/cart]
            """,
            "traces/cart");
    routing.output.pipeline("traces/cart").answer(Admission.FULL, Admission.CLOSED);
    Batch batch = Otlp.batch(Signal.TRACES, request());

    assertThat(routing.connector.consume(batch)).isEqualTo(Admission.FULL);
    assertThat(routing.connector.consume(batch)).isEqualTo(Admission.CLOSED);
    assertThat(routing.counter("sluice_connector_routing_unrouted_spans")).isZero();
    assertThat(routing.connector.consume(batch)).isEqualTo(Admission.ACCEPTED);

    assertThat(routing.counter("sluice_connector_routing_unrouted_spans")).isEqualTo(2);
    assertThat(routing.spans("traces/cart")).containsExactly("cart/http/c1", "cart/http/c2");
  }
}
