package dev.sluice.bench.load;

import com.github.luben.zstd.Zstd;
import dev.sluice.pdata.Signal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.GZIPOutputStream;

/**
 * OTLP/HTTP with protobuf bodies over the JDK's HTTP/1.1 client. Bodies are sent as given: with a
 * {@code Content-Encoding}, the caller compresses each distinct request once ({@link #encode}).
 */
public final class HttpTransport implements Transport {
  private static final int CLIENT_THREADS = 2;
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private final HttpClient client;
  private final ExecutorService executor;
  private final Map<Signal, URI> uris;
  private final String contentEncoding;
  private final Duration timeout;

  /**
   * @param contentEncoding {@code none}, {@code gzip} or {@code zstd}: the encoding the bodies
   *     passed to {@link #send} already have
   */
  public HttpTransport(String host, int port, String contentEncoding, long timeoutMillis) {
    this.executor = daemonThreads(CLIENT_THREADS, "http-client");
    this.client = http11Client(executor);
    this.uris = signalUris(host, port);
    this.contentEncoding = contentEncoding;
    this.timeout = Duration.ofMillis(timeoutMillis);
  }

  /** {@code threads} daemon threads named {@code name}, which the JDK client's callbacks run on. */
  public static ExecutorService daemonThreads(int threads, String name) {
    return Executors.newFixedThreadPool(
        threads,
        r -> {
          Thread thread = new Thread(r, name);
          thread.setDaemon(true);
          return thread;
        });
  }

  /** The JDK's HTTP/1.1 client (kept-alive connections) on {@code executor}. */
  public static HttpClient http11Client(Executor executor) {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(CONNECT_TIMEOUT)
        .executor(executor)
        .build();
  }

  /** Each signal's OTLP/HTTP URL at {@code host:port}. */
  public static Map<Signal, URI> signalUris(String host, int port) {
    Map<Signal, URI> uris = new EnumMap<>(Signal.class);
    for (Signal signal : Signal.values()) {
      uris.put(signal, URI.create("http://" + host + ":" + port + path(signal)));
    }
    return uris;
  }

  static String path(Signal signal) {
    return switch (signal) {
      case TRACES -> "/v1/traces";
      case METRICS -> "/v1/metrics";
      case LOGS -> "/v1/logs";
    };
  }

  /** {@code body} in {@code encoding} ({@code none}, {@code gzip}, {@code zstd}). */
  public static byte[] encode(byte[] body, String encoding) {
    switch (encoding) {
      case "none":
        return body;
      case "gzip":
        try {
          ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 4);
          try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(body);
          }
          return out.toByteArray();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      case "zstd":
        return Zstd.compress(body, 1);
      default:
        throw new IllegalArgumentException("unknown encoding " + encoding);
    }
  }

  @Override
  public void send(Signal signal, byte[] body, Done done) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uris.get(signal))
            .timeout(timeout)
            .header("Content-Type", "application/x-protobuf")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (!contentEncoding.equals("none")) {
      request.header("Content-Encoding", contentEncoding);
    }
    client
        .sendAsync(request.build(), HttpResponse.BodyHandlers.discarding())
        .whenComplete(
            (response, failure) -> {
              if (failure != null) {
                Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                done.completed(cause.getClass().getSimpleName());
              } else if (response.statusCode() / 100 == 2) {
                done.completed(null);
              } else {
                done.completed("HTTP " + response.statusCode());
              }
            });
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
