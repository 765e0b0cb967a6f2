package dev.sluice.receiver.otlp;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Cross-origin requests from browser SDKs ({@code cors}): origins allowed exactly or by {@code *}
 * wildcards, request headers allowed beyond the CORS-safelisted ones and those OTLP needs, and how
 * long a preflight answer may be cached.
 */
final class Cors {
  /** Headers every OTLP/HTTP request may carry, allowed without being listed. */
  private static final Set<String> ALWAYS_ALLOWED =
      Set.of("accept", "accept-language", "content-type", "content-language", "content-encoding");

  private final List<Pattern> origins = new ArrayList<>();
  private final boolean anyHeader;
  private final Set<String> headers = new LinkedHashSet<>(ALWAYS_ALLOWED);
  private final long maxAgeSeconds;

  Cors(HttpServerConfig.Cors config) {
    for (String origin : config.allowedOrigins()) {
      StringBuilder regex = new StringBuilder();
      for (String part : origin.split("\\*", -1)) {
        if (regex.length() > 0) {
          regex.append(".*");
        }
        regex.append(Pattern.quote(part));
      }
      origins.add(Pattern.compile(regex.toString(), Pattern.CASE_INSENSITIVE));
    }
    boolean any = false;
    for (String header : config.allowedHeaders()) {
      if ("*".equals(header)) {
        any = true;
      }
      headers.add(header.toLowerCase(Locale.ROOT));
    }
    this.anyHeader = any;
    this.maxAgeSeconds = config.maxAge().toSeconds();
  }

  boolean allows(String origin) {
    return origins.stream().anyMatch(p -> p.matcher(origin).matches());
  }

  /** Adds the answer's CORS headers for a request from {@code origin}, if it is allowed. */
  void allow(String origin, Map<String, String> answerHeaders) {
    if (allows(origin)) {
      answerHeaders.put(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN.toString(), origin);
      answerHeaders.put(HttpHeaderNames.VARY.toString(), "Origin");
    }
  }

  /** The answer to a preflight {@code OPTIONS} request. */
  OtlpHttpHandler.Answer preflight(FullHttpRequest request) {
    OtlpHttpHandler.Answer answer =
        new OtlpHttpHandler.Answer(HttpResponseStatus.NO_CONTENT, null, new byte[0]);
    String origin = request.headers().get(HttpHeaderNames.ORIGIN);
    String method = request.headers().get(HttpHeaderNames.ACCESS_CONTROL_REQUEST_METHOD);
    if (origin == null || !allows(origin) || !"POST".equalsIgnoreCase(method)) {
      return answer;
    }
    String requested = request.headers().get(HttpHeaderNames.ACCESS_CONTROL_REQUEST_HEADERS, "");
    List<String> allowed = new ArrayList<>();
    for (String header : requested.split(",")) {
      String name = header.trim().toLowerCase(Locale.ROOT);
      if (name.isEmpty()) {
        continue;
      }
      if (!anyHeader && !headers.contains(name)) {
        // One header not allowed fails the whole preflight: the browser will not send.
        return answer;
      }
      allowed.add(name);
    }
    answer.headers.put(HttpHeaderNames.ACCESS_CONTROL_ALLOW_METHODS.toString(), "POST");
    if (!allowed.isEmpty()) {
      answer.headers.put(
          HttpHeaderNames.ACCESS_CONTROL_ALLOW_HEADERS.toString(), String.join(", ", allowed));
    }
    if (maxAgeSeconds > 0) {
      answer.headers.put(
          HttpHeaderNames.ACCESS_CONTROL_MAX_AGE.toString(), Long.toString(maxAgeSeconds));
    }
    return answer;
  }
}
