package dev.sluice.connector.routing;

import static dev.sluice.connector.routing.Otlp.resourceSpans;
import static dev.sluice.connector.routing.Otlp.scopeSpans;
import static dev.sluice.connector.routing.Otlp.span;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.connector.routing.Otlp.Routing;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Several pipelines' threads routing through one connector at once, as the graph calls it. */
class ConcurrentRoutingTest {
  private static final int THREADS = 4;
  private static final int BATCHES = 300;

  @Test
  void threadsRoutingAtOnceEachRouteEveryItemOfTheirOwnBatches() throws Exception {
    Routing routing =
        new Routing(
            Signal.TRACES,
            """
            default_pipelines: [traces/other]
            table:
              - condition: attributes["service.name"] == "shop"
                pipelines: [traces/shop]
              - context: span
                condition: attributes["tenant"] == "acme"
                pipelines: [traces/acme]
            """,
            "traces/shop",
            "traces/acme",
            "traces/other");
    byte[] request =
        Otlp.traces(
            resourceSpans("shop", scopeSpans("http", span("s1", "acme"), span("s2", "globex"))),
            resourceSpans(
                "cart", scopeSpans("http", span("c1", "acme"), span("c2", "x"), span("c3", "y"))));
    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<Integer>> accepted = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        accepted.add(
            threads.submit(
                () -> {
                  int count = 0;
                  for (int i = 0; i < BATCHES; i++) {
                    Batch batch = Otlp.batch(Signal.TRACES, request);
                    if (routing.connector.consume(batch) == Admission.ACCEPTED) {
                      count++;
                    } else {
                      batch.clear();
                    }
                  }
                  return count;
                }));
      }
      for (Future<Integer> result : accepted) {
        assertThat(result.get(60, TimeUnit.SECONDS)).isEqualTo(BATCHES);
      }
    } finally {
      threads.shutdownNow();
    }

    int batches = THREADS * BATCHES;
    List<String> shop = routing.spans("traces/shop");
    List<String> acme = routing.spans("traces/acme");
    List<String> other = routing.spans("traces/other");
    assertThat(shop).hasSize(2 * batches).allMatch(s -> s.startsWith("shop/"));
    assertThat(acme).hasSize(batches).allMatch(s -> s.equals("cart/http/c1"));
    assertThat(other)
        .hasSize(2 * batches)
        .allMatch(s -> s.equals("cart/http/c2") || s.equals("cart/http/c3"));
  }
}
