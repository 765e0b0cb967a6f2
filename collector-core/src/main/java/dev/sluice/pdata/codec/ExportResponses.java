package dev.sluice.pdata.codec;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.internal.OtlpFields.PartialSuccess;
import dev.sluice.pdata.internal.OtlpFields.Response;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.WireReader;
import dev.sluice.pdata.internal.WireType;
import java.nio.charset.StandardCharsets;

/**
 * What an OTLP server answers, in protobuf, read and written without protobuf-java: the export
 * response with its {@code partial_success} (the same two fields for traces, metrics and logs), and
 * the {@code google.rpc.Status} of a failure with the {@code google.rpc.RetryInfo} in its details.
 */
public final class ExportResponses {
  /** The type URL of a {@code google.rpc.RetryInfo} packed in a Status's details. */
  public static final String RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo";

  // google.rpc.Status { int32 code = 1; string message = 2; repeated Any details = 3; }
  private static final int STATUS_CODE = 1;
  private static final int STATUS_MESSAGE = 2;
  private static final int STATUS_DETAILS = 3;
  // Any { string type_url = 1; bytes value = 2; }
  private static final int ANY_TYPE_URL = 1;
  private static final int ANY_VALUE = 2;
  // RetryInfo { Duration retry_delay = 1; }, Duration { int64 seconds = 1; int32 nanos = 2; }
  private static final int RETRY_DELAY = 1;
  private static final int DURATION_SECONDS = 1;
  private static final int DURATION_NANOS = 2;
  private static final int MAX_DEPTH = 8;

  /** What a partial success reports: how many items were rejected, and why. */
  public record Partial(long rejected, String errorMessage) {}

  private ExportResponses() {}

  /**
   * The {@code partial_success} of an export response, or null when it has none (or one with no
   * rejected items and no message: full success), or when the response is unreadable: a success
   * response means the data arrived whatever its body says.
   */
  public static Partial partialSuccess(byte[] response) {
    if (response == null || response.length == 0) {
      return null;
    }
    WireReader in = new WireReader().wrap(response, 0, response.length);
    try {
      while (in.hasRemaining()) {
        int tag = in.readTag();
        if (tag == WireType.tag(Response.PARTIAL_SUCCESS, WireType.LEN)) {
          int length = in.readLength();
          return partial(response, in.position(), length);
        }
        in.skipValue(tag, MAX_DEPTH);
      }
    } catch (MalformedOtlpException e) {
      return null;
    }
    return null;
  }

  private static Partial partial(byte[] bytes, int offset, int length)
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
        in.skipValue(tag, MAX_DEPTH);
      }
    }
    return rejected == 0 && message.isEmpty() ? null : new Partial(rejected, message);
  }

  /**
   * An export response reporting a partial success; the empty response (full success) when {@code
   * rejected} is 0 and the message empty.
   */
  public static byte[] partialSuccessResponse(long rejected, String errorMessage) {
    if (rejected == 0 && errorMessage.isEmpty()) {
      return new byte[0];
    }
    byte[] message = errorMessage.getBytes(StandardCharsets.UTF_8);
    ProtoWriter out = new ProtoWriter(16 + message.length);
    int partial = out.beginLengthDelimited(Response.PARTIAL_SUCCESS);
    if (rejected != 0) {
      out.writeTag(PartialSuccess.REJECTED, WireType.VARINT);
      out.writeVarint64(rejected);
    }
    if (message.length > 0) {
      out.writeLengthDelimitedHeader(PartialSuccess.ERROR_MESSAGE, message.length);
      out.writeBytes(message, 0, message.length);
    }
    out.endLengthDelimited(partial);
    return out.toByteArray();
  }

  /**
   * A {@code google.rpc.Status} with a code and message and, when {@code retryDelayMillis > 0}, a
   * RetryInfo in its details.
   */
  public static byte[] status(int code, String message, long retryDelayMillis) {
    ProtoWriter out = new ProtoWriter(64 + message.length() * 3);
    if (code != 0) {
      out.writeTag(STATUS_CODE, WireType.VARINT);
      out.writeVarint64(code);
    }
    if (!message.isEmpty()) {
      byte[] text = message.getBytes(StandardCharsets.UTF_8);
      out.writeLengthDelimitedHeader(STATUS_MESSAGE, text.length);
      out.writeBytes(text, 0, text.length);
    }
    if (retryDelayMillis > 0) {
      int any = out.beginLengthDelimited(STATUS_DETAILS);
      byte[] type = RETRY_INFO_TYPE.getBytes(StandardCharsets.US_ASCII);
      out.writeLengthDelimitedHeader(ANY_TYPE_URL, type.length);
      out.writeBytes(type, 0, type.length);
      int value = out.beginLengthDelimited(ANY_VALUE);
      int retryDelay = out.beginLengthDelimited(RETRY_DELAY);
      long seconds = retryDelayMillis / 1000;
      int nanos = (int) (retryDelayMillis % 1000) * 1_000_000;
      if (seconds != 0) {
        out.writeTag(DURATION_SECONDS, WireType.VARINT);
        out.writeVarint64(seconds);
      }
      if (nanos != 0) {
        out.writeTag(DURATION_NANOS, WireType.VARINT);
        out.writeVarint32(nanos);
      }
      out.endLengthDelimited(retryDelay);
      out.endLengthDelimited(value);
      out.endLengthDelimited(any);
    }
    return out.toByteArray();
  }

  /** The message of a {@code google.rpc.Status}; empty when it has none or is unreadable. */
  public static String statusMessage(byte[] status) {
    if (status == null || status.length == 0) {
      return "";
    }
    try {
      WireReader in = new WireReader().wrap(status, 0, status.length);
      while (in.hasRemaining()) {
        int tag = in.readTag();
        if (tag == WireType.tag(STATUS_MESSAGE, WireType.LEN)) {
          int length = in.readLength();
          return new String(status, in.position(), length, StandardCharsets.UTF_8);
        }
        in.skipValue(tag, MAX_DEPTH);
      }
    } catch (MalformedOtlpException e) {
      return "";
    }
    return "";
  }

  /**
   * The delay of the first RetryInfo in a {@code google.rpc.Status}'s details (as sent in {@code
   * grpc-status-details-bin}), in nanoseconds; -1 when there is none or the status is unreadable.
   */
  public static long retryDelayNanos(byte[] status) {
    if (status == null) {
      return -1;
    }
    try {
      WireReader in = new WireReader().wrap(status, 0, status.length);
      while (in.hasRemaining()) {
        int tag = in.readTag();
        if (tag != WireType.tag(STATUS_DETAILS, WireType.LEN)) {
          in.skipValue(tag, MAX_DEPTH);
          continue;
        }
        int anyLength = in.readLength();
        int anyEnd = in.position() + anyLength;
        long delay = retryInfoDelay(status, in.position(), anyLength);
        in.position(anyEnd);
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
      if (tag == WireType.tag(ANY_TYPE_URL, WireType.LEN)) {
        int n = any.readLength();
        isRetryInfo =
            RETRY_INFO_TYPE.equals(new String(bytes, any.position(), n, StandardCharsets.UTF_8));
        any.position(any.position() + n);
      } else if (tag == WireType.tag(ANY_VALUE, WireType.LEN)) {
        valueLength = any.readLength();
        valueOffset = any.position();
        any.position(valueOffset + valueLength);
      } else {
        any.skipValue(tag, MAX_DEPTH);
      }
    }
    if (!isRetryInfo || valueOffset < 0) {
      return -1;
    }
    WireReader info = new WireReader().wrap(bytes, valueOffset, valueLength);
    long seconds = 0;
    long nanos = 0;
    while (info.hasRemaining()) {
      int tag = info.readTag();
      if (tag != WireType.tag(RETRY_DELAY, WireType.LEN)) {
        info.skipValue(tag, MAX_DEPTH);
        continue;
      }
      int n = info.readLength();
      WireReader duration = new WireReader().wrap(bytes, info.position(), n);
      info.position(info.position() + n);
      while (duration.hasRemaining()) {
        int durationTag = duration.readTag();
        if (durationTag == WireType.tag(DURATION_SECONDS, WireType.VARINT)) {
          seconds = duration.readVarint64();
        } else if (durationTag == WireType.tag(DURATION_NANOS, WireType.VARINT)) {
          nanos = (int) duration.readVarint64();
        } else {
          duration.skipValue(durationTag, MAX_DEPTH);
        }
      }
    }
    return durationNanos(seconds, nanos);
  }

  /**
   * A {@code google.protobuf.Duration} in nanoseconds, 0 when negative and {@link Long#MAX_VALUE}
   * when longer than a long counts: a server's delay never wraps around into a short one.
   */
  static long durationNanos(long seconds, long nanos) {
    if (seconds < 0) {
      return 0;
    }
    if (seconds >= Long.MAX_VALUE / 1_000_000_000L) {
      return Long.MAX_VALUE;
    }
    return Math.max(0, seconds * 1_000_000_000L + nanos);
  }
}
