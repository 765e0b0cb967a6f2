package dev.sluice.exporter.otlp;

import dev.sluice.component.ExportResult;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.otlp.OtlpFields.PartialSuccess;
import dev.sluice.pdata.otlp.OtlpFields.Response;
import dev.sluice.pdata.wire.WireReader;
import dev.sluice.pdata.wire.WireType;
import io.grpc.Metadata;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
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
  private static final String RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";
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
    if (response == null || response.length == 0) {
      return ExportResult.SUCCESS;
    }
    WireReader in = new WireReader().wrap(response, 0, response.length);
    try {
      while (in.hasRemaining()) {
        int tag = in.readTag();
        if (tag == WireType.tag(Response.PARTIAL_SUCCESS, WireType.LEN)) {
          int length = in.readLength();
          return partialSuccess(response, in.position(), length);
        }
        in.skipValue(tag, 8);
      }
    } catch (MalformedOtlpException e) {
      // An unreadable success response still means the data arrived.
    }
    return ExportResult.SUCCESS;
  }

  private static ExportResult partialSuccess(byte[] bytes, int offset, int length)
      throws MalformedOtlpException {
    WireReader in = new WireReader().wrap(bytes, offset, length);
    long rejected = 0;
    String message = "";
    while (in.hasRemaining()) {
      int tag = in.readTag();
      if (tag == WireType.tag(PartialSuccess.REJECTED, WireType.VARINT)) {
        rejected = in.readVarint64();
      } else if (tag == WireType.tag(PartialSuccess.ERROR_MESSAGE, WireType.LEN)) {
        int n = in.readLength();
        message = new String(bytes, in.position(), n, StandardCharsets.UTF_8);
        in.position(in.position() + n);
      } else {
        in.skipValue(tag, 8);
      }
    }
    if (rejected == 0 && message.isEmpty()) {
      return ExportResult.SUCCESS;
    }
    return ExportResult.partialSuccess(rejected, message);
  }

  /** The RetryInfo delay in the status details, or -1 when there is none. */
  static long retryDelayNanos(Metadata trailers) {
    byte[] details = trailers == null ? null : trailers.get(STATUS_DETAILS);
    if (details == null) {
      return -1;
    }
    try {
      WireReader status = new WireReader().wrap(details, 0, details.length);
      while (status.hasRemaining()) {
        int tag = status.readTag();
        if (tag != WireType.tag(3, WireType.LEN)) {
          status.skipValue(tag, 8);
          continue;
        }
        int anyLength = status.readLength();
        int anyEnd = status.position() + anyLength;
        long delay = retryInfoDelay(details, status.position(), anyLength);
        status.position(anyEnd);
        if (delay >= 0) {
          return delay;
        }
      }
    } catch (MalformedOtlpException e) {
      return -1;
    }
    return -1;
  }

  /** The delay of an {@code Any} holding a RetryInfo, or -1. */
  private static long retryInfoDelay(byte[] bytes, int offset, int length)
      throws MalformedOtlpException {
    WireReader any = new WireReader().wrap(bytes, offset, length);
    boolean isRetryInfo = false;
    int valueOffset = -1;
    int valueLength = 0;
    while (any.hasRemaining()) {
      int tag = any.readTag();
      if (tag == WireType.tag(1, WireType.LEN)) {
        int n = any.readLength();
        isRetryInfo =
            RETRY_INFO.equals(new String(bytes, any.position(), n, StandardCharsets.UTF_8));
        any.position(any.position() + n);
      } else if (tag == WireType.tag(2, WireType.LEN)) {
        valueLength = any.readLength();
        valueOffset = any.position();
        any.position(valueOffset + valueLength);
      } else {
        any.skipValue(tag, 8);
      }
    }
    if (!isRetryInfo || valueOffset < 0) {
      return -1;
    }
    // RetryInfo { Duration retry_delay = 1; }, Duration { int64 seconds = 1; int32 nanos = 2; }
    WireReader info = new WireReader().wrap(bytes, valueOffset, valueLength);
    long seconds = 0;
    long nanos = 0;
    while (info.hasRemaining()) {
      int tag = info.readTag();
      if (tag != WireType.tag(1, WireType.LEN)) {
        info.skipValue(tag, 8);
        continue;
      }
      int n = info.readLength();
      WireReader duration = new WireReader().wrap(bytes, info.position(), n);
      info.position(info.position() + n);
      while (duration.hasRemaining()) {
        int durationTag = duration.readTag();
        if (durationTag == WireType.tag(1, WireType.VARINT)) {
          seconds = duration.readVarint64();
        } else if (durationTag == WireType.tag(2, WireType.VARINT)) {
          nanos = (int) duration.readVarint64();
        } else {
          duration.skipValue(durationTag, 8);
        }
      }
    }
    return Math.max(0, seconds * 1_000_000_000L + nanos);
  }
}
