package dev.sluice.connector.servicegraph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.ComponentFactory;
import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The {@code servicegraph} connector's keys, bound and validated from YAML. */
class ServiceGraphConfigTest {
  @Test
  void takesTheCollectorsDefaults() {
    ServiceGraphConfig config = Harness.config("");
    assertThat(config.store())
        .isEqualTo(new ServiceGraphConfig.StoreConfig(1000, Duration.ofSeconds(2)));
    assertThat(config.latencyHistogramBuckets()).isNull();
    assertThat(config.boundsSeconds()).containsExactly(ServiceGraphConfig.DEFAULT_BOUNDS_SECONDS);
    assertThat(config.exponentialHistogramMaxSize()).isZero();
    assertThat(config.dimensions()).isEmpty();
    assertThat(config.cacheLoop()).isEqualTo(Duration.ofMinutes(1));
    assertThat(config.storeExpirationLoop()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.virtualNodePeerAttributes())
        .containsExactly("peer.service", "db.name", "db.system");
    assertThat(config.virtualNodeExtraLabel()).isFalse();
    assertThat(config.metricsFlushInterval()).isEqualTo(Duration.ofSeconds(60));
    assertThat(config.effectiveDatabaseNameAttributes()).containsExactly("db.name");
    assertThat(config.metricsTimestampOffset()).isZero();
    assertThat(config.maxSeries()).isEqualTo(10_000);
  }

  @Test
  void bindsEveryKey() {
    ServiceGraphConfig config =
        Harness.config(
            String.join(
                "\n",
                "metrics_exporter: prometheus",
                "latency_histogram_buckets: [100ms, 250ms, 1s]",
                "dimensions: [http.method, k8s.namespace.name]",
                "store:",
                "  ttl: 10s",
                "  max_items: 5000",
                "cache_loop: 2m",
                "store_expiration_loop: 5s",
                "virtual_node_peer_attributes: [peer.service, server.address]",
                "virtual_node_extra_label: true",
                "metrics_flush_interval: 15s",
                "database_name_attributes: [db.namespace]",
                "metrics_timestamp_offset: 10s",
                "max_series: 500"));
    assertThat(config.boundsSeconds()).containsExactly(0.1, 0.25, 1.0);
    assertThat(config.dimensions()).containsExactly("http.method", "k8s.namespace.name");
    assertThat(config.store())
        .isEqualTo(new ServiceGraphConfig.StoreConfig(5000, Duration.ofSeconds(10)));
    assertThat(config.cacheLoopNanos()).isEqualTo(Duration.ofMinutes(2).toNanos());
    assertThat(config.storeExpirationLoopNanos()).isEqualTo(Duration.ofSeconds(5).toNanos());
    assertThat(config.virtualNodePeerAttributes())
        .containsExactly("peer.service", "server.address");
    assertThat(config.virtualNodeExtraLabel()).isTrue();
    assertThat(config.metricsFlushInterval()).isEqualTo(Duration.ofSeconds(15));
    assertThat(config.effectiveDatabaseNameAttributes()).containsExactly("db.namespace");
    assertThat(config.metricsTimestampOffset()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.maxSeries()).isEqualTo(500);
  }

  @Test
  void loopsThatAreNotPositiveTakeTheirDefaultsAsInTheCollector() {
    ServiceGraphConfig config = Harness.config("cache_loop: 0s\nstore_expiration_loop: 0s");
    assertThat(config.cacheLoopNanos()).isEqualTo(Duration.ofMinutes(1).toNanos());
    assertThat(config.storeExpirationLoopNanos()).isEqualTo(Duration.ofSeconds(2).toNanos());
  }

  @Test
  void rejectsBothHistogramKindsAndEveryOtherProblemAtOnce() {
    assertThatThrownBy(
            () ->
                Harness.bind(
                    String.join(
                        "\n",
                        "latency_histogram_buckets: [1s, 500ms]",
                        "exponential_histogram_max_size: 160",
                        "dimensions: [a, a]",
                        "store: {max_items: 0, ttl: -1s}",
                        "metrics_flush_interval: -1s",
                        "max_series: 0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "use either `latency_histogram_buckets` or `exponential_histogram_max_size`")
        .hasMessageContaining("latency_histogram_buckets[1]")
        .hasMessageContaining("duplicate dimension a")
        .hasMessageContaining("max_items")
        .hasMessageContaining("ttl")
        .hasMessageContaining("metrics_flush_interval")
        .hasMessageContaining("max_series");
    assertThatThrownBy(() -> Harness.bind("exponential_histogram_max_size: -1"))
        .hasMessageContaining("can not be negative");
  }

  @Test
  void isFoundAsAServiceForTracesToMetrics() {
    List<ComponentFactory<?>> factories = new java.util.ArrayList<>();
    ServiceLoader.load(ComponentFactory.class).forEach(factories::add);
    assertThat(factories)
        .filteredOn(f -> f.type().equals("servicegraph"))
        .singleElement()
        .isInstanceOf(ServiceGraphConnectorFactory.class)
        .satisfies(
            f -> {
              ServiceGraphConnectorFactory sg = (ServiceGraphConnectorFactory) f;
              assertThat(
                      sg.supports(dev.sluice.pdata.Signal.TRACES, dev.sluice.pdata.Signal.METRICS))
                  .isTrue();
              assertThat(
                      sg.supports(dev.sluice.pdata.Signal.TRACES, dev.sluice.pdata.Signal.TRACES))
                  .isFalse();
            });
  }
}
