package dev.sluice.exporter.otlp;

import dev.sluice.component.AuthConfig;
import dev.sluice.component.AuthReference;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.pdata.Signal;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code otlphttp} exporter's configuration, with the OpenTelemetry Collector's keys and
 * defaults: protobuf encoding, gzip, a 30 s timeout, the sending queue and retries.
 *
 * @param endpoint the base URL; {@code /v1/traces}, {@code /v1/metrics} and {@code /v1/logs} are
 *     appended
 * @param tracesEndpoint the full URL for traces, overriding {@code endpoint}
 * @param metricsEndpoint the full URL for metrics, overriding {@code endpoint}
 * @param logsEndpoint the full URL for logs, overriding {@code endpoint}
 * @param encoding {@code proto} or {@code json}
 * @param compression {@code gzip}, {@code zstd}, {@code deflate} or {@code none}
 * @param compressionParams the compression's level
 * @param auth the authenticator that adds credentials to each request, off unless present
 */
public record OtlpHttpExporterConfig(
    String endpoint,
    String tracesEndpoint,
    String metricsEndpoint,
    String logsEndpoint,
    String encoding,
    String compression,
    CompressionParams compressionParams,
    TlsClientConfig tls,
    Map<String, String> headers,
    Duration timeout,
    QueueConfig sendingQueue,
    RetryConfig retryOnFailure,
    @OptionalSection AuthConfig auth)
    implements ExporterConfig {
  public static final OtlpHttpExporterConfig DEFAULT =
      new OtlpHttpExporterConfig(
          "",
          "",
          "",
          "",
          "proto",
          "gzip",
          CompressionParams.DEFAULT,
          TlsClientConfig.DEFAULT,
          Map.of(),
          Duration.ofSeconds(30),
          QueueConfig.DEFAULT,
          RetryConfig.DEFAULT,
          AuthConfig.DEFAULT);

  private static final Set<String> COMPRESSIONS = Set.of("gzip", "zstd", "deflate", "none", "");

  /** An exporter without an authenticator. */
  public OtlpHttpExporterConfig(
      String endpoint,
      String tracesEndpoint,
      String metricsEndpoint,
      String logsEndpoint,
      String encoding,
      String compression,
      CompressionParams compressionParams,
      TlsClientConfig tls,
      Map<String, String> headers,
      Duration timeout,
      QueueConfig sendingQueue,
      RetryConfig retryOnFailure) {
    this(
        endpoint,
        tracesEndpoint,
        metricsEndpoint,
        logsEndpoint,
        encoding,
        compression,
        compressionParams,
        tls,
        headers,
        timeout,
        sendingQueue,
        retryOnFailure,
        null);
  }

  @Override
  public List<AuthReference> authReferences() {
    return ExporterKeys.authReferences(auth);
  }

  /** The URL requests of this signal go to. */
  URI url(Signal signal) {
    String specific;
    String path;
    switch (signal) {
      case TRACES:
        specific = tracesEndpoint;
        path = "v1/traces";
        break;
      case METRICS:
        specific = metricsEndpoint;
        path = "v1/metrics";
        break;
      default:
        specific = logsEndpoint;
        path = "v1/logs";
    }
    if (!specific.isEmpty()) {
      return URI.create(specific);
    }
    return URI.create(endpoint.endsWith("/") ? endpoint + path : endpoint + "/" + path);
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (endpoint.isEmpty()
        && (tracesEndpoint.isEmpty() || metricsEndpoint.isEmpty() || logsEndpoint.isEmpty())) {
      problems.add(
          "endpoint",
          "is required unless traces_endpoint, metrics_endpoint and logs_endpoint are all set");
    }
    validateUrl(endpoint, "endpoint", problems);
    validateUrl(tracesEndpoint, "traces_endpoint", problems);
    validateUrl(metricsEndpoint, "metrics_endpoint", problems);
    validateUrl(logsEndpoint, "logs_endpoint", problems);
    if (!"proto".equals(encoding) && !"json".equals(encoding)) {
      problems.add("encoding", "must be proto or json, was \"" + encoding + "\"");
    }
    if (!COMPRESSIONS.contains(compression)) {
      problems.add(
          "compression", "must be gzip, zstd, deflate or none, was \"" + compression + "\"");
    } else {
      compressionParams.validate(compression, problems.under("compression_params"));
    }
    ExporterKeys.validateTimeout(timeout, problems);
  }

  private static void validateUrl(String url, String key, ConfigProblems problems) {
    if (url.isEmpty()) {
      return;
    }
    try {
      URI uri = new URI(url);
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
        problems.add(key, "must be an http:// or https:// URL, was \"" + url + "\"");
      } else if (uri.getHost() == null) {
        problems.add(key, "has no host: \"" + url + "\"");
      }
    } catch (URISyntaxException e) {
      problems.add(key, "is not a URL: " + e.getMessage());
    }
  }
}
