package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.component.ExportResult;
import dev.sluice.http.HttpClient;
import java.nio.charset.StandardCharsets;

/**
 * What a remote-write receiver's answer means, by the remote-write specification: 2xx is success;
 * 5xx and 429 are retried, no sooner than {@code Retry-After} (seconds or an HTTP date) asks; any
 * other status is permanent, since sending the same data again would be refused again.
 */
final class RemoteWriteAnswers {
  private static final int MAX_MESSAGE_CHARS = 500;

  private RemoteWriteAnswers() {}

  static ExportResult of(int status, byte[] body, String retryAfter) {
    if (status >= 200 && status < 300) {
      return ExportResult.SUCCESS;
    }
    String message = "HTTP " + status + message(body);
    if (status == 429 || (status >= 500 && status < 600)) {
      return ExportResult.retryable(
          message, retryAfter == null ? 0 : HttpClient.retryAfterNanos(retryAfter));
    }
    return ExportResult.permanent(message);
  }

  /**
   * A receiver's {@code X-Prometheus-Remote-Write-*-Written} count: a non-negative decimal; -1 when
   * absent or unreadable (a receiver's malformed count is not the data's fault).
   */
  static long writtenCount(String header) {
    if (header == null) {
      return -1;
    }
    try {
      long value = Long.parseLong(header.trim());
      return value >= 0 ? value : -1;
    } catch (NumberFormatException notANumber) {
      return -1;
    }
  }

  /** ": " and the body as text (receivers answer errors in plain text), cut short. */
  private static String message(byte[] body) {
    if (body == null || body.length == 0) {
      return "";
    }
    String text = new String(body, StandardCharsets.UTF_8).strip();
    if (text.length() > MAX_MESSAGE_CHARS) {
      text = text.substring(0, MAX_MESSAGE_CHARS) + "...";
    }
    return text.isEmpty() ? "" : ": " + text;
  }
}
