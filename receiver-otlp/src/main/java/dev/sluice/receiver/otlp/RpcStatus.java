package dev.sluice.receiver.otlp;

import dev.sluice.pdata.wire.ProtoWriter;
import dev.sluice.pdata.wire.WireType;
import java.nio.charset.StandardCharsets;

/**
 * {@code google.rpc.Status} and {@code google.rpc.RetryInfo} in protobuf, written by hand: the gRPC
 * receiver sends them in {@code grpc-status-details-bin}, the HTTP receiver as error bodies.
 */
final class RpcStatus {
  static final String RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo";

  // google.rpc.Code values.
  static final int INVALID_ARGUMENT = 3;
  static final int DEADLINE_EXCEEDED = 4;
  static final int NOT_FOUND = 5;
  static final int RESOURCE_EXHAUSTED = 8;
  static final int UNIMPLEMENTED = 12;
  static final int INTERNAL = 13;
  static final int UNAVAILABLE = 14;
  static final int UNAUTHENTICATED = 16;

  private RpcStatus() {}

  /** The same Status as JSON, for requests sent as JSON: {@code {"code":3,"message":"..."}}. */
  static String json(int code, String message) {
    StringBuilder out = new StringBuilder("{\"code\":").append(code).append(",\"message\":\"");
    for (int i = 0; i < message.length(); i++) {
      char c = message.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append("\"}").toString();
  }

  /** A Status with a code and message and, when {@code retryDelayMillis > 0}, a RetryInfo. */
  static byte[] encode(int code, String message, long retryDelayMillis) {
    ProtoWriter out = new ProtoWriter(64 + message.length() * 3);
    if (code != 0) {
      out.writeTag(1, WireType.VARINT);
      out.writeVarint64(code);
    }
    if (!message.isEmpty()) {
      byte[] text = message.getBytes(StandardCharsets.UTF_8);
      out.writeLengthDelimitedHeader(2, text.length);
      out.writeBytes(text, 0, text.length);
    }
    if (retryDelayMillis > 0) {
      int any = out.beginLengthDelimited(3);
      byte[] type = RETRY_INFO_TYPE.getBytes(StandardCharsets.US_ASCII);
      out.writeLengthDelimitedHeader(1, type.length);
      out.writeBytes(type, 0, type.length);
      int value = out.beginLengthDelimited(2);
      int retryDelay = out.beginLengthDelimited(1);
      long seconds = retryDelayMillis / 1000;
      int nanos = (int) (retryDelayMillis % 1000) * 1_000_000;
      if (seconds != 0) {
        out.writeTag(1, WireType.VARINT);
        out.writeVarint64(seconds);
      }
      if (nanos != 0) {
        out.writeTag(2, WireType.VARINT);
        out.writeVarint32(nanos);
      }
      out.endLengthDelimited(retryDelay);
      out.endLengthDelimited(value);
      out.endLengthDelimited(any);
    }
    return out.toByteArray();
  }
}
