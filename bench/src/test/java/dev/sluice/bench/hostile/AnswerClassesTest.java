package dev.sluice.bench.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.hostile.Answer.Kind;
import io.grpc.Metadata;
import io.grpc.Status;
import org.junit.jupiter.api.Test;

class AnswerClassesTest {
  @Test
  void unavailableCountsAsBackpressureOnlyWithRetryInfo() {
    Metadata withDetails = new Metadata();
    withDetails.put(
        Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER),
        new byte[] {8, 14});
    assertThat(HostileGrpcClient.classify(Status.UNAVAILABLE, withDetails).kind())
        .isEqualTo(Kind.BACKPRESSURE);
    assertThat(HostileGrpcClient.classify(Status.UNAVAILABLE, new Metadata()).kind())
        .isEqualTo(Kind.VIOLATION);
  }

  @Test
  void internalAndUnknownAreViolations() {
    assertThat(HostileGrpcClient.classify(Status.INTERNAL, new Metadata()).kind())
        .isEqualTo(Kind.VIOLATION);
    assertThat(HostileGrpcClient.classify(Status.UNKNOWN, new Metadata()).kind())
        .isEqualTo(Kind.VIOLATION);
    assertThat(HostileGrpcClient.classify(Status.INVALID_ARGUMENT, new Metadata()).kind())
        .isEqualTo(Kind.MALFORMED);
    assertThat(HostileGrpcClient.classify(Status.RESOURCE_EXHAUSTED, new Metadata()).kind())
        .isEqualTo(Kind.TOO_LARGE);
  }

  @Test
  void aValidRequestRefusedAsMalformedIsAViolation() {
    Verdict verdict = new Verdict(1);
    HostileCase control =
        new HostileCase(
            3,
            HostileCase.Protocol.HTTP,
            dev.sluice.pdata.Signal.TRACES,
            false,
            null,
            new byte[] {1},
            "control",
            HostileCase.Expect.ACCEPTED);
    verdict.record(control, Answer.of(Kind.MALFORMED, "400"));
    assertThat(verdict.failures()).containsExactly("1 x http: valid request answered 400");
    assertThat(verdict.samples())
        .singleElement()
        .satisfies(s -> assertThat(s.base64()).isEqualTo("AQ=="));
  }
}
