package dev.sluice.exporter.loadbalancing;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.GoDuration;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.Unsupported;
import dev.sluice.exporter.otlp.OtlpExporterConfig;
import java.time.Duration;
import java.util.List;

/**
 * The {@code loadbalancing} exporter's configuration, with the OpenTelemetry Collector's keys.
 *
 * @param protocol {@code protocol.otlp}: the template of every backend's OTLP gRPC exporter (TLS,
 *     compression, headers, per-attempt {@code timeout}, per-backend {@code retry_on_failure}); its
 *     {@code endpoint} is replaced by each backend's, as in the Go collector
 * @param resolver where the backends come from: exactly one of {@code static} and {@code dns}
 * @param routingKey {@code traceID}, {@code service}, {@code resource} or {@code metric}; empty for
 *     the signal's default ({@code traceID} for traces, {@code service} for metrics and logs)
 * @param timeout how long one batch may take to be routed: every attempt, per-backend retry and
 *     re-routing of its parts
 * @param sendingQueue the one queue in front of every backend (there is none per backend)
 * @param retryOnFailure retries of a whole batch once no backend is left for part of it
 */
public record LoadBalancingExporterConfig(
    Protocol protocol,
    Resolver resolver,
    String routingKey,
    Duration timeout,
    QueueConfig sendingQueue,
    RetryConfig retryOnFailure)
    implements ExporterConfig {

  /** The endpoint the template holds until each backend's replaces it, as in the Go collector. */
  static final String PLACEHOLDER_ENDPOINT = "placeholder:4317";

  public static final LoadBalancingExporterConfig DEFAULT =
      new LoadBalancingExporterConfig(
          new Protocol(withEndpoint(OtlpExporterConfig.DEFAULT, PLACEHOLDER_ENDPOINT)),
          new Resolver(null, null, null, null),
          "",
          Duration.ofMinutes(5),
          QueueConfig.DEFAULT,
          RetryConfig.DEFAULT);

  /** {@code protocol}: only OTLP over gRPC, as in the Go collector. */
  public record Protocol(OtlpExporterConfig otlp) {}

  /**
   * {@code resolver}: exactly one of its sections. {@code k8s} and {@code aws_cloud_map} are
   * recognised so that their files load into a located error, and refused: they are not in this
   * build.
   */
  public record Resolver(
      @OptionalSection StaticResolver static_,
      @OptionalSection DnsResolver dns,
      Unsupported k8s,
      Unsupported awsCloudMap)
      implements dev.sluice.component.Validatable {
    @Override
    public void validate(ConfigProblems problems) {
      int count = 0;
      for (Object section : new Object[] {static_, dns, k8s, awsCloudMap}) {
        count += section == null ? 0 : 1;
      }
      if (k8s != null) {
        problems.add("k8s", "the k8s resolver is not in this build; use static or dns");
      }
      if (awsCloudMap != null) {
        problems.add(
            "aws_cloud_map", "the aws_cloud_map resolver is not in this build; use static or dns");
      }
      if (count == 0) {
        problems.add("", "exactly one resolver is required: static or dns");
      } else if (count > 1) {
        problems.add("", "only one resolver may be given, found " + count);
      }
    }
  }

  /** {@code resolver.static}: a fixed list of backends, {@code host} or {@code host:port}. */
  public record StaticResolver(List<String> hostnames) implements dev.sluice.component.Validatable {
    @Override
    public void validate(ConfigProblems problems) {
      if (hostnames.isEmpty()) {
        problems.add("hostnames", "must name at least one backend");
      }
      for (int i = 0; i < hostnames.size(); i++) {
        String host = hostnames.get(i);
        if (host == null || host.isBlank()) {
          problems.under("hostnames").item(i).add("", "must not be empty");
        } else if (!BackendAddress.isValid(host)) {
          problems
              .under("hostnames")
              .item(i)
              .add(
                  "",
                  "must be host or host:port with a port from 1 to 65535, was \"" + host + "\"");
        }
      }
    }
  }

  /**
   * {@code resolver.dns}: the backends are the addresses {@code hostname} resolves to, looked up
   * again every {@code interval}, each lookup given at most {@code timeout}.
   */
  public record DnsResolver(String hostname, String port, Duration interval, Duration timeout)
      implements dev.sluice.component.Validatable {
    public static final DnsResolver DEFAULT =
        new DnsResolver("", "4317", Duration.ofSeconds(5), Duration.ofSeconds(1));

    @Override
    public void validate(ConfigProblems problems) {
      if (hostname.isBlank()) {
        problems.add("hostname", "is required: the name whose addresses are the backends");
      }
      if (!port.isEmpty() && !BackendAddress.isPort(port)) {
        problems.add("port", "must be a port from 1 to 65535, was \"" + port + "\"");
      }
      if (interval.isNegative() || interval.isZero()) {
        problems.add("interval", "must be positive, was " + GoDuration.format(interval));
      }
      if (timeout.isNegative() || timeout.isZero()) {
        problems.add("timeout", "must be positive, was " + GoDuration.format(timeout));
      }
    }
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (timeout.isNegative() || timeout.isZero()) {
      problems.add("timeout", "must be positive, was " + GoDuration.format(timeout));
    }
    RoutingKey.validate(routingKey, problems);
  }

  /** The template with the backend's endpoint in place of its own. */
  static OtlpExporterConfig withEndpoint(OtlpExporterConfig t, String endpoint) {
    return new OtlpExporterConfig(
        endpoint,
        t.tls(),
        t.headers(),
        t.compression(),
        t.compressionParams(),
        t.timeout(),
        t.sendingQueue(),
        t.retryOnFailure(),
        t.keepalive(),
        t.balancerName(),
        t.authority(),
        t.waitForReady(),
        t.auth());
  }
}
