package dev.sluice.receiver.otlp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP/1.1 written and read byte by byte over a plain socket, for the tests that need what a client
 * library would hide: exact heads, partial bodies, kept-alive and closed connections.
 */
final class RawHttp {
  private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)content-length: (\\d+)");

  private RawHttp() {}

  /** The head of a protobuf POST to {@code path}, with {@code extraHeaders} (each ending CRLF). */
  static byte[] postHead(String path, long contentLength, String extraHeaders) {
    return ("POST "
            + path
            + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
            + extraHeaders
            + "Content-Length: "
            + contentLength
            + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** An answer's head up to and with its blank line, or what came before the stream ended. */
  static String readHead(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.append((char) b);
    }
    return head.toString();
  }

  /** The declared Content-Length of {@code head}, or -1 if it declares none. */
  static int contentLength(String head) {
    Matcher length = CONTENT_LENGTH.matcher(head);
    return length.find() ? Integer.parseInt(length.group(1)) : -1;
  }

  /** The body after {@code head}, as long as its Content-Length says (none: empty). */
  static byte[] readBody(InputStream in, String head) throws IOException {
    int length = contentLength(head);
    return length >= 0 ? in.readNBytes(length) : new byte[0];
  }
}
