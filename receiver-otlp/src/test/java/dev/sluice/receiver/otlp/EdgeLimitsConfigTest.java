package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ConfigProblems;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class EdgeLimitsConfigTest {
  @Test
  void defaultsAreValidAndBounded() {
    ConfigProblems problems = new ConfigProblems();
    OtlpReceiverConfig.DEFAULT.validate(problems);

    // The receiver checks its own keys only; the default TLS and auth sections (what an empty
    // tls: or auth: gets, which need their files or authenticator) are checked as sections.
    assertThat(problems.all()).isEmpty();
    GrpcServerConfig grpc = GrpcServerConfig.DEFAULT;
    assertThat(grpc.maxConcurrentStreams()).isEqualTo(100);
    assertThat(grpc.maxConnections()).isEqualTo(1000);
    assertThat(grpc.maxInFlightBytesMib()).isEqualTo(32);
    assertThat(grpc.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(grpc.maxCallDuration()).isEqualTo(Duration.ofMinutes(1));
    assertThat(grpc.keepalive().serverParameters().maxConnectionIdle())
        .isEqualTo(Duration.ofMinutes(1));
    HttpServerConfig http = HttpServerConfig.DEFAULT;
    assertThat(http.readTimeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(http.readHeaderTimeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(http.idleTimeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(http.maxConnections()).isEqualTo(1000);
    assertThat(http.maxInFlightBytesMib()).isEqualTo(32);
  }

  @Test
  void rejectsAnInFlightBoundThatCannotHoldTheLargestRequest() {
    ConfigProblems problems = new ConfigProblems();
    new HttpServerConfig(
            "localhost:4318",
            null,
            null,
            20L << 20,
            false,
            "/v1/traces",
            "/v1/metrics",
            "/v1/logs",
            Duration.ofSeconds(-1),
            Duration.ZERO,
            Duration.ZERO,
            0,
            16,
            null)
        .validate(problems);
    new GrpcServerConfig(
            "localhost:4317",
            "tcp",
            null,
            8,
            100,
            GrpcServerConfig.Keepalive.DEFAULT,
            false,
            1000,
            4,
            Duration.ZERO,
            Duration.ofSeconds(-1),
            null)
        .validate(problems.under("grpc"));

    assertThat(problems.all())
        .extracting(ConfigProblems.Problem::path)
        .containsExactlyInAnyOrder(
            "read_timeout",
            "max_connections",
            "max_in_flight_bytes_mib",
            "grpc.max_in_flight_bytes_mib",
            "grpc.handshake_timeout",
            "grpc.max_call_duration");
  }

  @Test
  void zeroHeaderAndIdleTimeoutsTakeTheReadTimeoutAsGoDoes() {
    HttpServerConfig http =
        new HttpServerConfig(
            "localhost:4318",
            null,
            null,
            1 << 20,
            false,
            "/v1/traces",
            "/v1/metrics",
            "/v1/logs",
            Duration.ofSeconds(7),
            Duration.ZERO,
            Duration.ZERO,
            10,
            1,
            null);

    assertThat(http.effectiveReadHeaderTimeout()).isEqualTo(Duration.ofSeconds(7));
    assertThat(http.effectiveIdleTimeout()).isEqualTo(Duration.ofSeconds(7));
  }
}
