package dev.sluice.exporter.otlp;

import dev.sluice.component.AuthConfig;
import dev.sluice.component.AuthReference;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.TlsClientConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code otlp} (gRPC) exporter's configuration, with the OpenTelemetry Collector's keys and
 * defaults: TLS unless {@code tls.insecure}, gzip compression, a 5 s timeout, a sending queue of
 * 1000 requests with 10 consumers, and retries for up to 5 minutes.
 *
 * @param endpoint {@code host:port} of the destination; an {@code https://} prefix is allowed, and
 *     {@code http://} means plaintext
 * @param compression {@code gzip}, {@code zstd} or {@code none}
 * @param compressionParams the compression's level
 * @param balancerName {@code round_robin} or {@code pick_first}
 * @param authority overrides the {@code :authority} header, empty for the endpoint's host
 * @param auth the authenticator that adds credentials to each call, off unless present
 */
public record OtlpExporterConfig(
    String endpoint,
    TlsClientConfig tls,
    Map<String, String> headers,
    String compression,
    CompressionParams compressionParams,
    Duration timeout,
    QueueConfig sendingQueue,
    RetryConfig retryOnFailure,
    @OptionalSection Keepalive keepalive,
    String balancerName,
    String authority,
    boolean waitForReady,
    @OptionalSection AuthConfig auth)
    implements ExporterConfig {
  public static final OtlpExporterConfig DEFAULT =
      new OtlpExporterConfig(
          "",
          TlsClientConfig.DEFAULT,
          Map.of(),
          "gzip",
          CompressionParams.DEFAULT,
          Duration.ofSeconds(5),
          QueueConfig.DEFAULT,
          RetryConfig.DEFAULT,
          Keepalive.DEFAULT,
          "round_robin",
          "",
          false,
          AuthConfig.DEFAULT);

  private static final Set<String> COMPRESSIONS = Set.of("gzip", "zstd", "none", "");

  /** An exporter without an authenticator. */
  public OtlpExporterConfig(
      String endpoint,
      TlsClientConfig tls,
      Map<String, String> headers,
      String compression,
      CompressionParams compressionParams,
      Duration timeout,
      QueueConfig sendingQueue,
      RetryConfig retryOnFailure,
      Keepalive keepalive,
      String balancerName,
      String authority,
      boolean waitForReady) {
    this(
        endpoint,
        tls,
        headers,
        compression,
        compressionParams,
        timeout,
        sendingQueue,
        retryOnFailure,
        keepalive,
        balancerName,
        authority,
        waitForReady,
        null);
  }

  @Override
  public List<AuthReference> authReferences() {
    return ExporterKeys.authReferences(auth);
  }

  /** Client keepalive pings; 0 leaves them off. */
  public record Keepalive(Duration time, Duration timeout, boolean permitWithoutStream) {
    public static final Keepalive DEFAULT =
        new Keepalive(Duration.ZERO, Duration.ofSeconds(20), false);
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (endpoint.isBlank()) {
      problems.add("endpoint", "is required, such as collector.example.com:4317");
    } else {
      try {
        Target.parse(endpoint);
      } catch (IllegalArgumentException e) {
        problems.add("endpoint", e.getMessage());
      }
    }
    if (!COMPRESSIONS.contains(compression)) {
      problems.add("compression", "must be gzip, zstd or none, was \"" + compression + "\"");
    } else {
      compressionParams.validate(compression, problems.under("compression_params"));
    }
    ExporterKeys.validateTimeout(timeout, problems);
    if (!Set.of("round_robin", "pick_first").contains(balancerName)) {
      problems.add(
          "balancer_name", "must be round_robin or pick_first, was \"" + balancerName + "\"");
    }
  }

  /** The gRPC compression name, or null for none. */
  String grpcCompression() {
    return compression.isEmpty() || "none".equals(compression) ? null : compression;
  }
}
