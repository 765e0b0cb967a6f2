package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.component.ExportResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

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
      return ExportResult.retryable(message, retryAfter == null ? 0 : retryAfterNanos(retryAfter));
    }
    return ExportResult.permanent(message);
  }

  /** {@code Retry-After}: delay-seconds or an HTTP-date; 0 when unreadable or past. */
  static long retryAfterNanos(String value) {
    String text = value.trim();
    try {
      return Duration.ofSeconds(Math.max(0, Long.parseLong(text))).toNanos();
    } catch (NumberFormatException notSeconds) {
      try {
        ZonedDateTime at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME);
        return Math.max(0, Duration.between(ZonedDateTime.now(at.getZone()), at).toNanos());
      } catch (DateTimeParseException notADate) {
        return 0;
      }
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
