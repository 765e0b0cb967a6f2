package dev.sluice.receiver.otlp;

import dev.sluice.core.component.AuthConfig;
import dev.sluice.core.component.ConfigProblems;
import dev.sluice.core.component.Endpoint;
import dev.sluice.core.component.OptionalSection;
import dev.sluice.core.component.TlsServerConfig;
import java.time.Duration;

/**
 * The gRPC server ({@code protocols.grpc}), with the OpenTelemetry Collector's keys and defaults.
 *
 * @param endpoint where to listen, {@code localhost:4317} by default
 * @param transport only {@code tcp}
 * @param tls TLS, off unless present
 * @param maxRecvMsgSizeMib the largest request, compressed or decompressed, in MiB (default 4)
 * @param maxConcurrentStreams concurrent calls per connection; 0 is no limit
 * @param keepalive HTTP/2 keepalive and connection ageing
 * @param includeMetadata accepted for compatibility; request metadata is not passed on
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
    @OptionalSection AuthConfig auth) {
  public static final GrpcServerConfig DEFAULT =
      new GrpcServerConfig(
          "localhost:4317",
          "tcp",
          TlsServerConfig.DEFAULT,
          4,
          0,
          Keepalive.DEFAULT,
          false,
          AuthConfig.DEFAULT);

  /** A server without authentication. */
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
        null);
  }

  /** {@code keepalive}: server parameters and the enforcement policy for clients' pings. */
  public record Keepalive(
      @OptionalSection ServerParameters serverParameters,
      @OptionalSection EnforcementPolicy enforcementPolicy) {
    public static final Keepalive DEFAULT =
        new Keepalive(ServerParameters.DEFAULT, EnforcementPolicy.DEFAULT);
  }

  /** Durations of 0 leave grpc-java's defaults (no limit, pings every two hours). */
  public record ServerParameters(
      Duration maxConnectionIdle,
      Duration maxConnectionAge,
      Duration maxConnectionAgeGrace,
      Duration time,
      Duration timeout) {
    public static final ServerParameters DEFAULT =
        new ServerParameters(
            Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO);
  }

  /** How often clients may ping; grpc-java's default is once per 5 minutes. */
  public record EnforcementPolicy(Duration minTime, boolean permitWithoutStream) {
    public static final EnforcementPolicy DEFAULT =
        new EnforcementPolicy(Duration.ofMinutes(5), false);
  }

  public void validate(ConfigProblems problems) {
    Endpoint.validate(endpoint, "endpoint", problems);
    if (!"tcp".equals(transport)) {
      problems.add("transport", "only tcp is supported, was \"" + transport + "\"");
    }
    if (tls != null) {
      tls.validate(problems.under("tls"));
    }
    if (maxRecvMsgSizeMib < 1 || maxRecvMsgSizeMib > 2047) {
      problems.add("max_recv_msg_size_mib", "must be between 1 and 2047, was " + maxRecvMsgSizeMib);
    }
    if (maxConcurrentStreams < 0) {
      problems.add("max_concurrent_streams", "must not be negative, was " + maxConcurrentStreams);
    }
    if (auth != null) {
      auth.validate(problems.under("auth"));
    }
  }
}
