package dev.sluice.exporter.otlp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.component.ExportResult;
import dev.sluice.http.HttpClient;
import dev.sluice.pdata.codec.ExportResponses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Turns what an OTLP/HTTP server answered into an {@link ExportResult}, by the OTLP specification's
 * rules: 2xx is success (with {@code partial_success} read from the body), 429, 502, 503 and 504
 * are retried no sooner than {@code Retry-After} (seconds or an HTTP date), any other status is
 * permanent.
 */
final class HttpAnswers {
  private static final JsonFactory JSON = new JsonFactory();

  private HttpAnswers() {}

  static ExportResult of(int status, byte[] body, boolean json, Optional<String> retryAfter) {
    if (status >= 200 && status < 300) {
      return json ? jsonSuccess(body) : GrpcAnswers.success(body);
    }
    return byStatus(status, "HTTP " + status + statusMessage(body, json), retryAfter);
  }

  /**
   * What the status alone says, {@code message} describing a failure. Also the judgement of an
   * answer whose body was not read (over the size bound): a 2xx there is success, since the data
   * was accepted, and only a partial success it may have reported is lost.
   */
  static ExportResult byStatus(int status, String message, Optional<String> retryAfter) {
    if (status >= 200 && status < 300) {
      return ExportResult.SUCCESS;
    }
    if (status == 429 || status == 502 || status == 503 || status == 504) {
      return ExportResult.retryable(
          message, retryAfter.map(HttpClient::retryAfterNanos).orElse(0L));
    }
    if (status == 400) {
      return ExportResult.malformed(message);
    }
    return ExportResult.permanent(message);
  }

  /** ": message" from a google.rpc.Status body, or nothing. */
  private static String statusMessage(byte[] body, boolean json) {
    if (body == null || body.length == 0) {
      return "";
    }
    if (json) {
      String text = new String(body, StandardCharsets.UTF_8);
      return ": " + (text.length() > 500 ? text.substring(0, 500) + "..." : text);
    }
    String message = ExportResponses.statusMessage(body);
    return message.isEmpty() ? "" : ": " + message;
  }

  /** A JSON export response: success, or partial success with its rejected count. */
  private static ExportResult jsonSuccess(byte[] body) {
    if (body == null || body.length == 0) {
      return ExportResult.SUCCESS;
    }
    try (JsonParser parser = JSON.createParser(body)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return ExportResult.SUCCESS;
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        parser.nextToken();
        if (!"partialSuccess".equals(name) && !"partial_success".equals(name)) {
          parser.skipChildren();
          continue;
        }
        long rejected = 0;
        String message = "";
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String field = parser.currentName();
          parser.nextToken();
          if (field.startsWith("rejected")) {
            rejected = Long.parseLong(parser.getValueAsString("0"));
          } else if ("errorMessage".equals(field) || "error_message".equals(field)) {
            message = parser.getValueAsString("");
          } else {
            parser.skipChildren();
          }
        }
        return rejected == 0 && message.isEmpty()
            ? ExportResult.SUCCESS
            : ExportResult.partialSuccess(rejected, message);
      }
    } catch (IOException | NumberFormatException e) {
      // An unreadable success response still means the data arrived.
    }
    return ExportResult.SUCCESS;
  }
}
