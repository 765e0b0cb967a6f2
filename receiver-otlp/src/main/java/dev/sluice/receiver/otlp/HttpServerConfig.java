package dev.sluice.receiver.otlp;

import dev.sluice.component.AuthConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Endpoint;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.TlsServerConfig;
import dev.sluice.component.Validatable;
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
 * @param includeMetadata keep the request's headers with its data (false), for a routing
 *     connector's {@code request} context
 * @param tracesUrlPath the path for traces, {@code /v1/traces}
 * @param metricsUrlPath the path for metrics, {@code /v1/metrics}
 * @param logsUrlPath the path for logs, {@code /v1/logs}
 * @param readTimeout how long a request may take to arrive whole, headers and body, from its first
 *     byte (1m; the OpenTelemetry Collector: no limit); 0 is no limit
 * @param readHeaderTimeout how long a request's headers may take from its first byte, or a new
 *     connection's first request's from the accept (1m); 0 takes {@code read_timeout}
 * @param idleTimeout how long a kept-alive connection may wait for its next request (1m); 0 takes
 *     {@code read_timeout}
 * @param maxConnections Sluice's own: open connections at most (1000); more are closed at accept
 * @param maxInFlightBytesMib Sluice's own: the bound on bytes of request bodies being received, in
 *     MiB (32); at or over it new requests are refused with 503 and Retry-After
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
    Duration readTimeout,
    Duration readHeaderTimeout,
    Duration idleTimeout,
    int maxConnections,
    int maxInFlightBytesMib,
    @OptionalSection AuthConfig auth)
    implements Validatable {
  static final Duration DEFAULT_READ_TIMEOUT = Duration.ofMinutes(1);
  static final Duration DEFAULT_READ_HEADER_TIMEOUT = Duration.ofMinutes(1);
  static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(1);
  static final int DEFAULT_MAX_CONNECTIONS = 1000;
  static final int DEFAULT_MAX_IN_FLIGHT_BYTES_MIB = 32;

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
          DEFAULT_READ_TIMEOUT,
          DEFAULT_READ_HEADER_TIMEOUT,
          DEFAULT_IDLE_TIMEOUT,
          DEFAULT_MAX_CONNECTIONS,
          DEFAULT_MAX_IN_FLIGHT_BYTES_MIB,
          AuthConfig.DEFAULT);

  /**
   * The OpenTelemetry Collector's keys, with the timeouts and Sluice's own limits defaulted and no
   * authentication.
   */
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
        DEFAULT_READ_TIMEOUT,
        DEFAULT_READ_HEADER_TIMEOUT,
        DEFAULT_IDLE_TIMEOUT,
        DEFAULT_MAX_CONNECTIONS,
        DEFAULT_MAX_IN_FLIGHT_BYTES_MIB,
        null);
  }

  /** {@code read_header_timeout}, or {@code read_timeout} when it is 0, as Go's server does. */
  Duration effectiveReadHeaderTimeout() {
    return readHeaderTimeout.isZero() ? readTimeout : readHeaderTimeout;
  }

  /** {@code idle_timeout}, or {@code read_timeout} when it is 0, as Go's server does. */
  Duration effectiveIdleTimeout() {
    return idleTimeout.isZero() ? readTimeout : idleTimeout;
  }

  /**
   * CORS: origins allowed (exact, or with {@code *} wildcards), extra request headers allowed
   * beyond the CORS-safelisted ones, and how long browsers may cache a preflight answer, in whole
   * seconds as the OpenTelemetry Collector takes it ({@code max_age: 600}; 0: no caching header).
   */
  public record Cors(List<String> allowedOrigins, List<String> allowedHeaders, long maxAge)
      implements Validatable {
    public static final Cors DEFAULT = new Cors(List.of(), List.of(), 0);

    @Override
    public void validate(ConfigProblems problems) {
      if (maxAge < 0) {
        problems.add("max_age", "must not be negative (seconds), was " + maxAge);
      }
    }
  }

  /** Checks this server's own keys; {@code tls}, {@code auth} and {@code cors} check themselves. */
  @Override
  public void validate(ConfigProblems problems) {
    Endpoint.validate(endpoint, "endpoint", problems);
    if (maxRequestBodySize < 1) {
      problems.add("max_request_body_size", "must be positive, was " + maxRequestBodySize);
    }
    notNegative(readTimeout, "read_timeout", problems);
    notNegative(readHeaderTimeout, "read_header_timeout", problems);
    notNegative(idleTimeout, "idle_timeout", problems);
    if (maxConnections < 1) {
      problems.add("max_connections", "must be positive, was " + maxConnections);
    }
    if (maxInFlightBytesMib < 1 || maxInFlightBytesMib > 1 << 20) {
      problems.add(
          "max_in_flight_bytes_mib", "must be between 1 and 1048576, was " + maxInFlightBytesMib);
    } else if (((long) maxInFlightBytesMib << 20) < maxRequestBodySize) {
      // Else a largest body could only ever be refused, and its client would retry forever.
      problems.add(
          "max_in_flight_bytes_mib",
          "must hold max_request_body_size ("
              + maxRequestBodySize
              + " bytes), was "
              + maxInFlightBytesMib);
    }
    validatePath(tracesUrlPath, "traces_url_path", problems);
    validatePath(metricsUrlPath, "metrics_url_path", problems);
    validatePath(logsUrlPath, "logs_url_path", problems);
  }

  private static void notNegative(Duration value, String key, ConfigProblems problems) {
    if (value.isNegative()) {
      problems.add(key, "must not be negative, was " + value);
    }
  }

  private static void validatePath(String path, String key, ConfigProblems problems) {
    if (!path.startsWith("/")) {
      problems.add(key, "must start with /, was \"" + path + "\"");
    }
  }
}
