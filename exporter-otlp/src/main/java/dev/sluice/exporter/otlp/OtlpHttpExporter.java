package dev.sluice.exporter.otlp;

import dev.sluice.component.ClientAuthenticator;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.Host;
import dev.sluice.http.HttpClient;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpJsonEncoder;
import dev.sluice.pdata.codec.OtlpMarshaler;
import java.io.IOException;
import java.net.URI;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * Sends batches over OTLP/HTTP (HTTP/1.1) with the core's {@link HttpClient}: kept-alive
 * connections, one request in flight on each, so each of the queue's consumers that sends at the
 * same time has a connection of its own. Bodies are marshaled by the stateless marshaler (or the
 * JSON encoder) and compressed on the sending thread into buffers that thread reuses, and Netty
 * writes them from there without a copy on the heap: {@link #export} returns only once Netty is
 * done with them.
 */
final class OtlpHttpExporter implements Exporter {
  private final ComponentSettings settings;
  private final OtlpHttpExporterConfig config;
  private final boolean json;
  private final String compression;
  private final Map<Signal, URI> urls = new EnumMap<>(Signal.class);
  private final ThreadLocal<MarshalContext> contexts = ThreadLocal.withInitial(MarshalContext::new);
  private final ThreadLocal<OtlpJsonEncoder> encoders =
      ThreadLocal.withInitial(OtlpJsonEncoder::new);
  private final ThreadLocal<HttpBodyCompressor> compressors;
  private volatile Client client;
  private volatile ClientAuthenticator authenticator;

  /** The client and, by signal ordinal, each signal's route; made by {@link #start}. */
  private record Client(HttpClient http, HttpClient.Route[] routes) {}

  OtlpHttpExporter(ComponentSettings settings, OtlpHttpExporterConfig config) {
    this.settings = settings;
    this.config = config;
    this.json = "json".equals(config.encoding());
    String configured = config.compression();
    this.compression = configured.isEmpty() || "none".equals(configured) ? null : configured;
    if (compression == null) {
      this.compressors = null;
    } else {
      int level = config.compressionParams().levelFor(compression);
      this.compressors = ThreadLocal.withInitial(() -> new HttpBodyCompressor(compression, level));
    }
    for (Signal signal : Signal.values()) {
      urls.put(signal, config.url(signal));
    }
  }

  @Override
  public void start() throws IOException {
    start(Host.NONE);
  }

  @Override
  public void start(Host host) throws IOException {
    if (config.auth() != null) {
      authenticator = host.clientAuthenticator(config.auth());
    }
    boolean https = urls.values().stream().anyMatch(u -> "https".equals(u.getScheme()));
    HttpClient http =
        new HttpClient(
            "sluice-exporter-" + settings.id() + "-io",
            https ? config.tls() : null,
            "exporters." + settings.id() + ".tls",
            settings.logger(),
            config.timeout(),
            HttpClient.MAX_RESPONSE_BYTES,
            HttpClient.IDLE_TIMEOUT);
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("User-Agent", "Sluice");
    headers.put("Content-Type", json ? "application/json" : "application/x-protobuf");
    if (compression != null) {
      headers.put("Content-Encoding", compression);
    }
    headers.putAll(config.headers());
    HttpClient.Route[] routes = new HttpClient.Route[Signal.values().length];
    for (Signal signal : Signal.values()) {
      routes[signal.ordinal()] = http.route(urls.get(signal), headers);
    }
    client = new Client(http, routes);
  }

  @Override
  public ExportResult export(Batch batch, long deadlineNanos) throws InterruptedException {
    Client current = client;
    if (current == null) {
      return ExportResult.retryable("the exporter is not running", 0);
    }
    MarshalContext context = contexts.get();
    int size = OtlpMarshaler.marshal(batch, context);
    byte[] body;
    int length;
    if (json) {
      body = encoders.get().encode(batch.signal(), context.outputArray(), 0, size);
      length = body.length;
    } else {
      body = context.outputArray();
      length = size;
    }
    HttpBodyCompressor compressor = null;
    if (compression != null) {
      compressor = compressors.get();
      length = compressor.compress(body, 0, length);
      body = compressor.output();
    }
    // No copy: the buffer is this thread's, and post() returns once Netty is done with it.
    HttpClient.Route route = current.routes()[batch.signal().ordinal()];
    ClientAuthenticator auth = authenticator;
    Map<String, String> authHeaders = auth != null ? auth.requestHeaders() : Map.of();
    HttpClient.Response response;
    try {
      response = current.http().post(route, body, 0, length, authHeaders, deadlineNanos);
    } catch (TimeoutException e) {
      return ExportResult.retryable("no answer before the deadline", 0);
    } catch (HttpClient.ResponseTooLargeException e) {
      // The status decides, as for any answer: resending data a 2xx accepted would duplicate it,
      // and resending what a 400 refused would fail again. Only the body's details are lost.
      return HttpAnswers.byStatus(e.status(), e.getMessage(), Optional.ofNullable(e.retryAfter()));
    } catch (IOException e) {
      return ExportResult.retryable("cannot reach " + urls.get(batch.signal()) + ": " + e, 0);
    } catch (IllegalArgumentException e) {
      // Nothing was sent. Not the exception's message: it quotes the value, a credential.
      return ExportResult.retryable(
          "the authenticator's request headers hold characters HTTP does not allow", 0);
    } finally {
      context.release();
      if (compressor != null) {
        compressor.release();
      }
    }
    return HttpAnswers.of(
        response.status(), response.body(), json, Optional.ofNullable(response.retryAfter()));
  }

  @Override
  public void shutdown(long deadlineNanos) throws InterruptedException {
    Client current = client;
    client = null;
    if (current != null) {
      current.http().shutdown(deadlineNanos);
    }
  }
}
