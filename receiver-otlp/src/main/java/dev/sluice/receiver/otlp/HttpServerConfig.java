package dev.sluice.receiver.otlp;

import dev.sluice.core.component.AuthConfig;
import dev.sluice.core.component.ConfigProblems;
import dev.sluice.core.component.Endpoint;
import dev.sluice.core.component.OptionalSection;
import dev.sluice.core.component.TlsServerConfig;
import java.time.Duration;
import java.util.List;

/**
 * The OTLP/HTTP server ({@code protocols.http}), with the OpenTelemetry Collector's keys and
 * defaults.
 *
 * @param endpoint where to listen, {@code localhost:4318} by default
 * @param tls TLS, off unless present
 * @param cors cross-origin requests from browser SDKs, off unless present
 * @param maxRequestBodySize the largest body, compressed or decompressed, in bytes (20 MiB)
 * @param includeMetadata accepted for compatibility; request headers are not passed on
 * @param tracesUrlPath the path for traces, {@code /v1/traces}
 * @param metricsUrlPath the path for metrics, {@code /v1/metrics}
 * @param logsUrlPath the path for logs, {@code /v1/logs}
 * @param auth the authenticator that checks each request's headers, off unless present
 */
public record HttpServerConfig(
    String endpoint,
    @OptionalSection TlsServerConfig tls,
    @OptionalSection Cors cors,
    long maxRequestBodySize,
    boolean includeMetadata,
    String tracesUrlPath,
    String metricsUrlPath,
    String logsUrlPath,
    @OptionalSection AuthConfig auth) {
  public static final HttpServerConfig DEFAULT =
      new HttpServerConfig(
          "localhost:4318",
          TlsServerConfig.DEFAULT,
          Cors.DEFAULT,
          20L << 20,
          false,
          "/v1/traces",
          "/v1/metrics",
          "/v1/logs",
          AuthConfig.DEFAULT);

  /** A server without authentication. */
  public HttpServerConfig(
      String endpoint,
      TlsServerConfig tls,
      Cors cors,
      long maxRequestBodySize,
      boolean includeMetadata,
      String tracesUrlPath,
      String metricsUrlPath,
      String logsUrlPath) {
    this(
        endpoint,
        tls,
        cors,
        maxRequestBodySize,
        includeMetadata,
        tracesUrlPath,
        metricsUrlPath,
        logsUrlPath,
        null);
  }

  /**
   * CORS: origins allowed (exact, or with {@code *} wildcards), extra request headers allowed
   * beyond the CORS-safelisted ones, and how long browsers may cache a preflight answer.
   */
  public record Cors(List<String> allowedOrigins, List<String> allowedHeaders, Duration maxAge) {
    public static final Cors DEFAULT = new Cors(List.of(), List.of(), Duration.ZERO);
  }

  public void validate(ConfigProblems problems) {
    Endpoint.validate(endpoint, "endpoint", problems);
    if (tls != null) {
      tls.validate(problems.under("tls"));
    }
    if (maxRequestBodySize < 1) {
      problems.add("max_request_body_size", "must be positive, was " + maxRequestBodySize);
    }
    validatePath(tracesUrlPath, "traces_url_path", problems);
    validatePath(metricsUrlPath, "metrics_url_path", problems);
    validatePath(logsUrlPath, "logs_url_path", problems);
    if (auth != null) {
      auth.validate(problems.under("auth"));
    }
  }

  private static void validatePath(String path, String key, ConfigProblems problems) {
    if (!path.startsWith("/")) {
      problems.add(key, "must start with /, was \"" + path + "\"");
    }
  }
}
