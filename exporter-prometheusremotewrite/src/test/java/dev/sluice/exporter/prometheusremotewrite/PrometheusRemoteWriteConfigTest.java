package dev.sluice.exporter.prometheusremotewrite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.prometheus.TranslationStrategy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PrometheusRemoteWriteConfigTest {
  static PrometheusRemoteWriteConfig config(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(
            yaml,
            "prometheusremotewrite.yaml",
            PrometheusRemoteWriteConfig.class,
            PrometheusRemoteWriteConfig.DEFAULT);
  }

  static List<String> problems(String yaml) {
    try {
      config(yaml);
      return List.of();
    } catch (ConfigException e) {
      return e.problems().stream().map(p -> p.path() + ": " + p.message()).toList();
    }
  }

  @Test
  void defaultsAreTheCollectors() throws Exception {
    PrometheusRemoteWriteConfig config = config("endpoint: http://127.0.0.1:9090/api/v1/write");

    assertThat(config.sendingQueue().enabled()).isTrue();
    assertThat(config.sendingQueue().queueSize()).isEqualTo(10_000);
    assertThat(config.sendingQueue().numConsumers()).isEqualTo(5);
    assertThat(config.retryOnFailure().initialInterval()).isEqualTo(Duration.ofMillis(50));
    assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.maxBatchSizeBytes()).isEqualTo(3_000_000);
    assertThat(config.targetInfo().enabled()).isTrue();
    assertThat(config.strategy()).isEqualTo(TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES);
    assertThat(config.resourceAttributes()).isEqualTo(ResourceAttributes.NONE);
    assertThat(config.protobufMessage()).isEqualTo(PrometheusRemoteWriteConfig.V1);
  }

  @Test
  void theHttpSectionWinsOverTheTopLevelClientKeys() throws Exception {
    PrometheusRemoteWriteConfig config =
        config(
            """
            endpoint: http://old:9090/write
            headers: {X-Scope-OrgID: old}
            http:
              endpoint: https://new:9090/write
              headers: {X-Scope-OrgID: tenant-1}
              timeout: 9s
            """);

    assertThat(config.url()).isEqualTo("https://new:9090/write");
    assertThat(config.headersInEffect()).isEqualTo(Map.of("X-Scope-OrgID", "tenant-1"));
    assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(9));
  }

  @Test
  void queueKeysOfTheCollectorSizeTheSendingQueueAndItsStorageStaysSluices() throws Exception {
    PrometheusRemoteWriteConfig config =
        config(
            """
            endpoint: http://127.0.0.1:9090/write
            remote_write_queue: {queue_size: 50, num_consumers: 2}
            sending_queue: {storage: file_storage}
            """);

    assertThat(config.sendingQueue().queueSize()).isEqualTo(50);
    assertThat(config.sendingQueue().numConsumers()).isEqualTo(2);
    assertThat(config.sendingQueue().storage()).isEqualTo("file_storage");
  }

  @Test
  void addMetricSuffixesFalseMeansNoSuffixesUnlessAStrategyIsNamed() throws Exception {
    assertThat(config("{endpoint: 'http://h/w', add_metric_suffixes: false}").strategy())
        .isEqualTo(TranslationStrategy.UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES);
    assertThat(
            config(
                    "{endpoint: 'http://h/w', add_metric_suffixes: false,"
                        + " translation_strategy: UnderscoreEscapingWithSuffixes}")
                .strategy())
        .isEqualTo(TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES);
  }

  @Test
  void resourceLabelsFollowEitherFormButNotBoth() throws Exception {
    assertThat(
            config(
                    "{endpoint: 'http://h/w', resource_to_telemetry_conversion: {enabled: true,"
                        + " exclude_service_attributes: true}}")
                .resourceAttributes()
                .mode())
        .isEqualTo(ResourceAttributes.Mode.ALL_BUT_SERVICE);
    ResourceAttributes patterns =
        config(
                "{endpoint: 'http://h/w', resource_constant_labels: {included: ['k8s.*'],"
                    + " excluded: [k8s.pod.uid]}}")
            .resourceAttributes();
    assertThat(patterns.matches("k8s.pod.name")).isTrue();
    assertThat(patterns.matches("k8s.pod.uid")).isFalse();
    assertThat(patterns.matches("host.name")).isFalse();
    assertThat(
            problems(
                "{endpoint: 'http://h/w', resource_to_telemetry_conversion: {enabled: true},"
                    + " resource_constant_labels: {included: [a]}}"))
        .anySatisfy(p -> assertThat(p).startsWith("resource_constant_labels: cannot be set"));
  }

  @Test
  void reportsEveryProblemWithItsKey() {
    assertThat(
            problems(
                """
                compression: gzip
                headers: {Content-Type: text/plain}
                external_labels: {cluster: ""}
                max_batch_size_bytes: -1
                remote_write_queue: {enabled: true, queue_size: 0}
                translation_strategy: Sideways
                protobuf_message: io.prometheus.write.v3.Request
                wal: {directory: /var/lib/otel}
                """))
        .anySatisfy(p -> assertThat(p).startsWith("endpoint: is required"))
        .anySatisfy(p -> assertThat(p).startsWith("compression: must be snappy"))
        .anySatisfy(p -> assertThat(p).startsWith("headers.Content-Type: is set by"))
        .anySatisfy(p -> assertThat(p).startsWith("external_labels: has an empty"))
        .anySatisfy(p -> assertThat(p).startsWith("max_batch_size_bytes: must not be negative"))
        .anySatisfy(p -> assertThat(p).startsWith("remote_write_queue.queue_size: is 0"))
        .anySatisfy(p -> assertThat(p).startsWith("translation_strategy: \"Sideways\""))
        .anySatisfy(p -> assertThat(p).startsWith("protobuf_message: "))
        .anySatisfy(p -> assertThat(p).startsWith("wal: is not supported"));
  }

  @Test
  void utf8StrategiesNeedRemoteWriteTwo() {
    assertThat(problems("{endpoint: 'http://h/w', translation_strategy: NoTranslation}"))
        .anySatisfy(p -> assertThat(p).contains("need remote write 2.0"));
    assertThat(
            problems(
                "{endpoint: 'http://h/w', translation_strategy: NoTranslation,"
                    + " protobuf_message: io.prometheus.write.v2.Request}"))
        .isEmpty();
  }
}
