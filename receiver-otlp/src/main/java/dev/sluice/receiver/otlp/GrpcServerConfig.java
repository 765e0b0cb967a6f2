package dev.sluice.receiver.otlp;

import dev.sluice.component.AuthConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Endpoint;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.TlsServerConfig;
import dev.sluice.component.Validatable;
import java.time.Duration;

/**
 * The gRPC server ({@code protocols.grpc}), with the OpenTelemetry Collector's keys and defaults.
 *
 * @param endpoint where to listen, {@code localhost:4317} by default
 * @param transport only {@code tcp}
 * @param tls TLS, off unless present
 * @param maxRecvMsgSizeMib the largest request, compressed or decompressed, in MiB (default 4)
 * @param maxConcurrentStreams concurrent calls per connection, 100 by default (the OpenTelemetry
 *     Collector leaves it unlimited); 0 is no limit
 * @param keepalive HTTP/2 keepalive and connection ageing
 * @param includeMetadata keep each call's metadata with its data (false), for a routing connector's
 *     {@code request} context
 * @param maxConnections Sluice's own: open connections at most (1000); more are closed at accept
 * @param maxInFlightBytesMib Sluice's own: the bound on bytes of requests being received, in MiB
 *     (32); at or over it new calls are refused with UNAVAILABLE and RetryInfo
 * @param handshakeTimeout Sluice's own: how long a new connection has to complete its TLS handshake
 *     and HTTP/2 preface before it is closed (10s)
 * @param maxCallDuration Sluice's own: how long a call may take before it is cancelled (1m)
 * @param auth the authenticator that checks each call's metadata, off unless present
 */
public record GrpcServerConfig(
    String endpoint,
    String transport,
    @OptionalSection TlsServerConfig tls,
    int maxRecvMsgSizeMib,
    int maxConcurrentStreams,
    Keepalive keepalive,
    boolean includeMetadata,
    int maxConnections,
    int maxInFlightBytesMib,
    Duration handshakeTimeout,
    Duration maxCallDuration,
    @OptionalSection AuthConfig auth)
    implements Validatable {
  /**
   * Calls per connection by default. Each call in progress may hold up to {@code
   * max_recv_msg_size_mib} while it is received; 100 is what grpc-go's and Netty's servers suggest
   * as a floor, and many more than an SDK, which sends a batch at a time, ever has in flight.
   */
  static final int DEFAULT_MAX_CONCURRENT_STREAMS = 100;

  static final int DEFAULT_MAX_CONNECTIONS = 1000;
  static final int DEFAULT_MAX_IN_FLIGHT_BYTES_MIB = 32;
  static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
  static final Duration DEFAULT_MAX_CALL_DURATION = Duration.ofMinutes(1);

  public static final GrpcServerConfig DEFAULT =
      new GrpcServerConfig(
          "localhost:4317",
          "tcp",
          TlsServerConfig.DEFAULT,
          4,
          DEFAULT_MAX_CONCURRENT_STREAMS,
          Keepalive.DEFAULT,
          false,
          DEFAULT_MAX_CONNECTIONS,
          DEFAULT_MAX_IN_FLIGHT_BYTES_MIB,
          DEFAULT_HANDSHAKE_TIMEOUT,
          DEFAULT_MAX_CALL_DURATION,
          AuthConfig.DEFAULT);

  /**
   * The OpenTelemetry Collector's keys, with Sluice's own limits at their defaults and no
   * authentication.
   */
  public GrpcServerConfig(
      String endpoint,
      String transport,
      TlsServerConfig tls,
      int maxRecvMsgSizeMib,
      int maxConcurrentStreams,
      Keepalive keepalive,
      boolean includeMetadata) {
    this(
        endpoint,
        transport,
        tls,
        maxRecvMsgSizeMib,
        maxConcurrentStreams,
        keepalive,
        includeMetadata,
        DEFAULT_MAX_CONNECTIONS,
        DEFAULT_MAX_IN_FLIGHT_BYTES_MIB,
        DEFAULT_HANDSHAKE_TIMEOUT,
        DEFAULT_MAX_CALL_DURATION,
        null);
  }

  /** {@code keepalive}: server parameters and the enforcement policy for clients' pings. */
  public record Keepalive(
      @OptionalSection ServerParameters serverParameters,
      @OptionalSection EnforcementPolicy enforcementPolicy) {
    public static final Keepalive DEFAULT =
        new Keepalive(ServerParameters.DEFAULT, EnforcementPolicy.DEFAULT);
  }

  /**
   * Durations of 0 leave grpc-java's defaults (no limit, pings every two hours), except that {@code
   * max_connection_idle} is 1m by default (the OpenTelemetry Collector: no limit): a connection
   * with no call in progress, which includes one whose first call's headers never complete, is then
   * closed with GOAWAY rather than holding one of {@code max_connections} forever.
   */
  public record ServerParameters(
      Duration maxConnectionIdle,
      Duration maxConnectionAge,
      Duration maxConnectionAgeGrace,
      Duration time,
      Duration timeout) {
    public static final ServerParameters DEFAULT =
        new ServerParameters(
            Duration.ofMinutes(1), Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO);
  }

  /** How often clients may ping; grpc-java's default is once per 5 minutes. */
  public record EnforcementPolicy(Duration minTime, boolean permitWithoutStream) {
    public static final EnforcementPolicy DEFAULT =
        new EnforcementPolicy(Duration.ofMinutes(5), false);
  }

  /** Checks this server's own keys; {@code tls}, {@code auth} and the rest check themselves. */
  @Override
  public void validate(ConfigProblems problems) {
    Endpoint.validate(endpoint, "endpoint", problems);
    if (!"tcp".equals(transport)) {
      problems.add("transport", "only tcp is supported, was \"" + transport + "\"");
    }
    if (maxRecvMsgSizeMib < 1 || maxRecvMsgSizeMib > 2047) {
      problems.add("max_recv_msg_size_mib", "must be between 1 and 2047, was " + maxRecvMsgSizeMib);
    }
    if (maxConcurrentStreams < 0) {
      problems.add("max_concurrent_streams", "must not be negative, was " + maxConcurrentStreams);
    }
    if (maxConnections < 1) {
      problems.add("max_connections", "must be positive, was " + maxConnections);
    }
    if (maxInFlightBytesMib < 1 || maxInFlightBytesMib > 1 << 20) {
      problems.add(
          "max_in_flight_bytes_mib", "must be between 1 and 1048576, was " + maxInFlightBytesMib);
    } else if (maxInFlightBytesMib < maxRecvMsgSizeMib) {
      // Else a largest message could only ever be refused, and its client would retry forever.
      problems.add(
          "max_in_flight_bytes_mib",
          "must be at least max_recv_msg_size_mib ("
              + maxRecvMsgSizeMib
              + "), was "
              + maxInFlightBytesMib);
    }
    if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
      problems.add("handshake_timeout", "must be positive, was " + handshakeTimeout);
    }
    if (maxCallDuration.isNegative() || maxCallDuration.isZero()) {
      problems.add("max_call_duration", "must be positive, was " + maxCallDuration);
    }
  }
}
