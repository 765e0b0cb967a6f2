package dev.sluice.receiver.otlp;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Cross-origin requests from browser SDKs ({@code cors}): origins allowed exactly or by {@code *}
 * wildcards, request headers allowed beyond the CORS-safelisted ones and those OTLP needs, and how
 * long a preflight answer may be cached.
 */
final class Cors {
  /** Headers every OTLP/HTTP request may carry, allowed without being listed. */
  private static final Set<String> ALWAYS_ALLOWED =
      Set.of("accept", "accept-language", "content-type", "content-language", "content-encoding");

  /** Allowed origins, lower-cased, with {@code *} standing for any run of characters. */
  private final List<String> origins = new ArrayList<>();

  private final boolean anyHeader;
  private final Set<String> headers = new LinkedHashSet<>(ALWAYS_ALLOWED);
  private final long maxAgeSeconds;

  Cors(HttpServerConfig.Cors config) {
    for (String origin : config.allowedOrigins()) {
      origins.add(origin.toLowerCase(Locale.ROOT));
    }
    boolean any = false;
    for (String header : config.allowedHeaders()) {
      if ("*".equals(header)) {
        any = true;
      }
      headers.add(header.toLowerCase(Locale.ROOT));
    }
    this.anyHeader = any;
    this.maxAgeSeconds = config.maxAge();
  }

  /**
   * Whether {@code request} is a CORS preflight: {@code OPTIONS} with {@code
   * Access-Control-Request-Method}, as the Fetch standard defines it and the OpenTelemetry
   * Collector's CORS handler tells it. Any other {@code OPTIONS} is an ordinary request.
   */
  static boolean isPreflight(HttpRequest request) {
    return HttpMethod.OPTIONS.equals(request.method())
        && request.headers().contains(HttpHeaderNames.ACCESS_CONTROL_REQUEST_METHOD);
  }

  boolean allows(String origin) {
    for (String pattern : origins) {
      if (matches(pattern, origin)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code text} matches {@code pattern}, whose {@code *} stand for any run of characters,
   * ignoring case. Backtracks only to the last {@code *}, so it takes at most pattern x text steps
   * whatever the origin header holds (a regular expression with several {@code .*} can take far
   * more on a hostile origin).
   */
  static boolean matches(String pattern, String text) {
    int p = 0;
    int t = 0;
    int star = -1;
    int resume = 0;
    while (t < text.length()) {
      if (p < pattern.length() && pattern.charAt(p) == '*') {
        star = p++;
        resume = t;
      } else if (p < pattern.length()
          && pattern.charAt(p) == Character.toLowerCase(text.charAt(t))) {
        p++;
        t++;
      } else if (star >= 0) {
        p = star + 1;
        t = ++resume;
      } else {
        return false;
      }
    }
    while (p < pattern.length() && pattern.charAt(p) == '*') {
      p++;
    }
    return p == pattern.length();
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
