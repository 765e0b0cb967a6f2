package dev.sluice.receiver.otlp;

import dev.sluice.pdata.codec.ExportResponses;

/**
 * {@code google.rpc.Status} and {@code google.rpc.RetryInfo} in protobuf, written by hand: the gRPC
 * receiver sends them in {@code grpc-status-details-bin}, the HTTP receiver as error bodies.
 */
final class RpcStatus {
  static final String RETRY_INFO_TYPE = ExportResponses.RETRY_INFO_TYPE;

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
    return ExportResponses.status(code, message, retryDelayMillis);
  }
}
