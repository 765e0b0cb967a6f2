package dev.sluice.bench.hostile;

import dev.sluice.bench.hostile.Answer.Kind;
import dev.sluice.bench.load.HttpTransport;
import dev.sluice.pdata.Signal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * Sends hostile cases over OTLP/HTTP with the JDK's HTTP/1.1 client (kept-alive connections): the
 * body as the case made it, {@code Content-Type} of its format and the {@code Content-Encoding} the
 * case claims.
 */
final class HostileHttpClient implements AutoCloseable {
  private static final int STATUS_OK = 200;
  private static final int STATUS_BAD_REQUEST = 400;
  private static final int STATUS_TOO_LARGE = 413;
  private static final int STATUS_TOO_MANY_REQUESTS = 429;
  private static final int STATUS_UNAVAILABLE = 503;
  private static final int CLIENT_THREADS = 2;

  private final ExecutorService executor;
  private final HttpClient client;
  private final Map<Signal, URI> uris;
  private final Duration timeout;

  HostileHttpClient(String host, int port, long timeoutMillis) {
    this.executor = HttpTransport.daemonThreads(CLIENT_THREADS, "hostile-http");
    this.client = HttpTransport.http11Client(executor);
    this.uris = HttpTransport.signalUris(host, port);
    this.timeout = Duration.ofMillis(timeoutMillis);
  }

  void send(HostileCase request, Answer.Sink answers) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(uris.get(request.signal()))
            .timeout(timeout)
            .header("Content-Type", request.json() ? "application/json" : "application/x-protobuf")
            .POST(HttpRequest.BodyPublishers.ofByteArray(request.body()));
    if (request.encodingHeader() != null) {
      builder.header("Content-Encoding", request.encodingHeader());
    }
    client
        .sendAsync(builder.build(), HttpResponse.BodyHandlers.ofByteArray())
        .whenComplete(
            (response, failure) -> {
              if (failure != null) {
                Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                answers.answered(
                    request,
                    Answer.of(
                        Kind.VIOLATION,
                        "http connection: "
                            + cause.getClass().getSimpleName()
                            + ": "
                            + Verdict.shorten(String.valueOf(cause.getMessage()))));
              } else {
                answers.answered(request, classify(response));
              }
            });
  }

  static Answer classify(HttpResponse<byte[]> response) {
    int status = response.statusCode();
    switch (status) {
      case STATUS_OK:
        return Answer.of(Kind.ACCEPTED, "200");
      case STATUS_BAD_REQUEST:
        return Answer.of(Kind.MALFORMED, "400");
      case STATUS_TOO_LARGE:
        return Answer.of(Kind.TOO_LARGE, "413");
      case STATUS_UNAVAILABLE:
      case STATUS_TOO_MANY_REQUESTS:
        if (response.headers().firstValue("Retry-After").isPresent()) {
          return Answer.of(Kind.BACKPRESSURE, Integer.toString(status));
        }
        return Answer.of(Kind.VIOLATION, "http " + status + " without Retry-After");
      default:
        String body = new String(response.body(), StandardCharsets.UTF_8);
        return Answer.of(Kind.VIOLATION, "http " + status + ": " + Verdict.shorten(body));
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
