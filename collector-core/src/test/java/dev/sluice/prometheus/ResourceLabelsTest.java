package dev.sluice.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.build.MetricsBuilder;
import dev.sluice.pdata.build.ValueWriter;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.ResourceView;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** {@code job}, {@code instance} and the attributes left out of {@code target_info}. */
class ResourceLabelsTest {

  /** What {@code read} makes of each resource written by {@code resources}, one per block. */
  private static List<String> read(
      Consumer<MetricsBuilder> resources, Function<ResourceView, String> read) {
    MetricsBuilder metrics = new MetricsBuilder();
    resources.accept(metrics);
    Batch batch = Batch.of(metrics.build());
    List<String> seen = new ArrayList<>();
    new BatchView()
        .forEachMetric(batch, (resource, scope, metric) -> seen.add(read.apply(resource)));
    batch.clear();
    return seen;
  }

  private static void resource(MetricsBuilder metrics, Consumer<ValueWriter> attributes) {
    attributes.accept(metrics.resource().attributes());
    metrics.scope();
    metrics.metric().name("m").gauge().numberPoint().timeUnixNano(1).intValue(1);
  }

  @Test
  void jobIsTheServiceNameInItsNamespace() {
    List<String> jobs =
        read(
            metrics -> {
              resource(
                  metrics, a -> a.put("service.name", "checkout").put("service.namespace", "shop"));
              resource(
                  metrics, a -> a.put("service.namespace", "shop").put("service.name", "cart"));
              resource(metrics, a -> a.put("service.name", "solo"));
              resource(
                  metrics, a -> a.put("service.name", "blank-ns").put("service.namespace", ""));
              resource(metrics, a -> a.put("service.namespace", "shop"));
              resource(metrics, a -> a.put("service.name", "").put("service.namespace", "shop"));
              resource(metrics, a -> a.put("service.name", 42L).put("service.namespace", true));
              resource(metrics, a -> a.put("host.name", "h1"));
            },
            ResourceLabels::job);

    assertThat(jobs)
        .containsExactly("shop/checkout", "shop/cart", "solo", "/blank-ns", "", "", "true/42", "");
  }

  @Test
  void instanceIsTheServiceInstanceId() {
    AttributeCursor cursor = new AttributeCursor();
    List<String> instances =
        read(
            metrics -> {
              resource(
                  metrics, a -> a.put("service.instance.id", "pod-7").put("service.name", "x"));
              resource(metrics, a -> a.put("service.name", "x"));
              resource(metrics, a -> a.put("service.instance.id", 1.5));
            },
            resource -> ResourceLabels.instance(resource, cursor));

    assertThat(instances).containsExactly("pod-7", "", "1.5");
  }

  @Test
  void theServiceAttributesAreLeftOutOfTargetInfo() {
    AttributeCursor cursor = new AttributeCursor();
    List<String> kept =
        read(
            metrics ->
                resource(
                    metrics,
                    a ->
                        a.put("service.name", "x")
                            .put("service.namespace", "y")
                            .put("service.instance.id", "z")
                            .put("service.version", "1.2")
                            .put("host.name", "h1")),
            resource -> {
              List<String> keys = new ArrayList<>();
              resource.attributes(cursor);
              while (cursor.next()) {
                if (!ResourceLabels.identifying(cursor.key())) {
                  keys.add(cursor.key().asString());
                }
              }
              return String.join(",", keys);
            });

    assertThat(kept).containsExactly("service.version,host.name");
  }

  @Test
  void theScopesOwnFieldsAreNotScopeAttributeLabels() {
    MetricsBuilder metrics = new MetricsBuilder();
    metrics.resource();
    metrics
        .scope()
        .attributes()
        .put("name", "a")
        .put("version", "b")
        .put("schema_url", "c")
        .put("team", "d")
        .put("names", "e");
    metrics.metric().name("m").gauge().numberPoint().timeUnixNano(1).intValue(1);
    Batch batch = Batch.of(metrics.build());
    AttributeCursor cursor = new AttributeCursor();
    List<String> labelled = new ArrayList<>();
    new BatchView()
        .forEachMetric(
            batch,
            (resource, scope, metric) -> {
              scope.attributes(cursor);
              while (cursor.next()) {
                if (!ResourceLabels.reservedScopeAttribute(cursor.key())) {
                  labelled.add(cursor.key().asString());
                }
              }
            });
    batch.clear();

    assertThat(labelled).containsExactly("team", "names");
  }
}
