package dev.sluice.exporter.loadbalancing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@code loadbalancing} exporter's keys, bound and validated from YAML as the collector does.
 */
class LoadBalancingExporterConfigTest {
  static LoadBalancingExporterConfig config(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(
            yaml,
            "lb.yaml",
            LoadBalancingExporterConfig.class,
            LoadBalancingExporterConfig.DEFAULT);
  }

  /**
   * A static list of {@code hostnames}, each sent to over plaintext OTLP with quick retries (for a
   * second) before a part goes to the next backend.
   */
  static LoadBalancingExporterConfig quickRetries(java.util.List<String> hostnames)
      throws ConfigException {
    return config(
        String.join(
            "\n",
            "protocol:",
            "  otlp:",
            "    tls:",
            "      insecure: true",
            "    timeout: 5s",
            "    retry_on_failure:",
            "      initial_interval: 20ms",
            "      max_interval: 50ms",
            "      max_elapsed_time: 1s",
            "resolver:",
            "  static:",
            "    hostnames: [" + String.join(", ", hostnames) + "]",
            ""));
  }

  @Test
  void takesTheDefaultsWithAStaticList() throws ConfigException {
    LoadBalancingExporterConfig config =
        config("resolver:\n  static:\n    hostnames: [a:4317, b]\n");

    assertThat(config.resolver().static_().hostnames()).containsExactly("a:4317", "b");
    assertThat(config.resolver().dns()).isNull();
    assertThat(config.routingKey()).isEmpty();
    assertThat(config.timeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(config.sendingQueue()).isEqualTo(QueueConfig.DEFAULT);
    assertThat(config.retryOnFailure()).isEqualTo(RetryConfig.DEFAULT);
    assertThat(config.protocol().otlp().compression()).isEqualTo("gzip");
    assertThat(config.protocol().otlp().timeout()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void bindsTheOtlpTemplateAndTheDnsResolver() throws ConfigException {
    LoadBalancingExporterConfig config =
        config(
            String.join(
                "\n",
                "routing_key: service",
                "protocol:",
                "  otlp:",
                "    tls:",
                "      insecure: true",
                "    compression: zstd",
                "    headers:",
                "      x-tenant: blue",
                "    timeout: 2s",
                "    retry_on_failure:",
                "      initial_interval: 100ms",
                "      max_elapsed_time: 3s",
                "resolver:",
                "  dns:",
                "    hostname: collectors.example.com",
                ""));

    assertThat(config.routingKey()).isEqualTo("service");
    assertThat(config.protocol().otlp().tls().insecure()).isTrue();
    assertThat(config.protocol().otlp().compression()).isEqualTo("zstd");
    assertThat(config.protocol().otlp().headers()).containsEntry("x-tenant", "blue");
    assertThat(config.protocol().otlp().retryOnFailure().initialInterval())
        .isEqualTo(Duration.ofMillis(100));
    assertThat(config.resolver().dns())
        .isEqualTo(
            new LoadBalancingExporterConfig.DnsResolver(
                "collectors.example.com", "4317", Duration.ofSeconds(5), Duration.ofSeconds(1)));
    assertThat(config.resolver().static_()).isNull();
  }

  static Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of(
            "resolver: {}",
            "lb.yaml:1:1: resolver: exactly one resolver is required: static or dns"),
        Arguments.of(
            "resolver:\n  static:\n    hostnames: [a]\n  dns:\n    hostname: b",
            "lb.yaml:1:1: resolver: only one resolver may be given, found 2"),
        Arguments.of(
            "resolver:\n  k8s:\n    service: lb-svc",
            "lb.yaml:2:3: resolver.k8s: the k8s resolver is not in this build; use static or dns"),
        Arguments.of(
            "resolver:\n  aws_cloud_map:\n    namespace: n",
            "lb.yaml:2:3: resolver.aws_cloud_map: the aws_cloud_map resolver is not in this build; use static or dns"),
        Arguments.of(
            "resolver:\n  static:\n    hostnames: []",
            "lb.yaml:3:5: resolver.static.hostnames: must name at least one backend"),
        Arguments.of(
            "resolver:\n  static:\n    hostnames: [a, 'b:99999']",
            "lb.yaml:3:20: resolver.static.hostnames[1]: must be host or host:port with a port from 1 to 65535, was \"b:99999\""),
        Arguments.of(
            "resolver:\n  dns:\n    port: x",
            "lb.yaml:2:3: resolver.dns.hostname: is required: the name whose addresses are the backends"),
        Arguments.of(
            "routing_key: streamID\nresolver:\n  dns:\n    hostname: h",
            "lb.yaml:1:1: routing_key: \"streamID\" is not in this build; use traceID, service, resource or metric"),
        Arguments.of(
            "routing_key: span\nresolver:\n  dns:\n    hostname: h",
            "lb.yaml:1:1: routing_key: must be traceID, service, resource or metric, was \"span\""));
  }

  @ParameterizedTest
  @MethodSource("refusals")
  void refusesWithTheKeyAndWhereItIs(String yaml, String message) {
    assertThatThrownBy(() -> config(yaml))
        .isInstanceOf(ConfigException.class)
        .satisfies(
            e ->
                assertThat(((ConfigException) e).problems().stream().map(Object::toString).toList())
                    .contains(message));
  }

  @Test
  void theDnsPortMustBeANumber() {
    assertThatThrownBy(() -> config("resolver:\n  dns:\n    hostname: h\n    port: http\n"))
        .isInstanceOf(ConfigException.class)
        .satisfies(
            e ->
                assertThat(((ConfigException) e).problems().stream().map(Object::toString).toList())
                    .isEqualTo(
                        List.of(
                            "lb.yaml:4:5: resolver.dns.port: must be a port from 1 to 65535, was"
                                + " \"http\"")));
  }
}
