package dev.sluice.exporter.otlp;

import dev.sluice.component.ExportResult;
import dev.sluice.pdata.codec.ExportResponses;
import io.grpc.Metadata;
import io.grpc.Status;
import java.util.EnumSet;
import java.util.Set;

/**
 * Turns what an OTLP gRPC server answered into an {@link ExportResult}, by the OTLP specification's
 * rules: retry CANCELLED, DEADLINE_EXCEEDED, ABORTED, OUT_OF_RANGE, UNAVAILABLE and DATA_LOSS;
 * retry RESOURCE_EXHAUSTED only when it carries RetryInfo; wait at least the RetryInfo delay;
 * everything else is permanent. Responses and status details are read off the wire without
 * protobuf-java.
 */
final class GrpcAnswers {
  static final Metadata.Key<byte[]> STATUS_DETAILS =
      Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);
  private static final Set<Status.Code> RETRYABLE =
      EnumSet.of(
          Status.Code.CANCELLED,
          Status.Code.DEADLINE_EXCEEDED,
          Status.Code.ABORTED,
          Status.Code.OUT_OF_RANGE,
          Status.Code.UNAVAILABLE,
          Status.Code.DATA_LOSS);

  private GrpcAnswers() {}

  /** The result of a call that ended with a non-OK status. */
  static ExportResult failure(Status status, Metadata trailers) {
    long retryDelayNanos = retryDelayNanos(trailers);
    String message =
        status.getCode() + (status.getDescription() == null ? "" : ": " + status.getDescription());
    if (RETRYABLE.contains(status.getCode())) {
      return ExportResult.retryable(message, Math.max(0, retryDelayNanos));
    }
    if (status.getCode() == Status.Code.RESOURCE_EXHAUSTED && retryDelayNanos >= 0) {
      return ExportResult.retryable(message, retryDelayNanos);
    }
    if (status.getCode() == Status.Code.INVALID_ARGUMENT) {
      return ExportResult.malformed(message);
    }
    return ExportResult.permanent(message);
  }

  /**
   * The result of an OK response: full success, or partial success when the response carries {@code
   * partial_success} with a rejected count.
   */
  static ExportResult success(byte[] response) {
    ExportResponses.Partial partial = ExportResponses.partialSuccess(response);
    return partial == null
        ? ExportResult.SUCCESS
        : ExportResult.partialSuccess(partial.rejected(), partial.errorMessage());
  }

  /** The RetryInfo delay in the status details, or -1 when there is none. */
  static long retryDelayNanos(Metadata trailers) {
    byte[] details = trailers == null ? null : trailers.get(STATUS_DETAILS);
    return ExportResponses.retryDelayNanos(details);
  }
}
