package dev.sluice.exporter.otlp;

import com.github.luben.zstd.Zstd;
import dev.sluice.core.component.ComponentSettings;
import dev.sluice.core.component.ExportResult;
import dev.sluice.core.component.Exporter;
import dev.sluice.core.json.OtlpJsonEncoder;
import dev.sluice.core.otlp.Batch;
import dev.sluice.core.otlp.MarshalContext;
import dev.sluice.core.otlp.OtlpMarshaler;
import dev.sluice.core.otlp.Signal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Sends batches over OTLP/HTTP with the JDK's {@link HttpClient}: HTTP/1.1 with a pool of
 * keep-alive connections (HTTP/2 over TLS where the server offers it), bodies marshaled by the
 * stateless marshaler (or the JSON encoder) and compressed on the sending thread.
 */
final class OtlpHttpExporter implements Exporter {
  private final OtlpHttpExporterConfig config;
  private final boolean json;
  private final Map<Signal, URI> urls = new EnumMap<>(Signal.class);
  private final ThreadLocal<MarshalContext> contexts = ThreadLocal.withInitial(MarshalContext::new);
  private final ThreadLocal<OtlpJsonEncoder> encoders =
      ThreadLocal.withInitial(OtlpJsonEncoder::new);
  private volatile HttpClient client;

  OtlpHttpExporter(ComponentSettings settings, OtlpHttpExporterConfig config) {
    this.config = config;
    this.json = "json".equals(config.encoding());
    for (Signal signal : Signal.values()) {
      urls.put(signal, config.url(signal));
    }
  }

  @Override
  public void start() throws IOException, GeneralSecurityException {
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .connectTimeout(config.timeout())
            .followRedirects(HttpClient.Redirect.NEVER);
    boolean https = urls.values().stream().anyMatch(u -> "https".equals(u.getScheme()));
    if (https) {
      builder.sslContext(PemTls.context(config.tls()));
    } else {
      // Plain HTTP: no upgrade dance, straight HTTP/1.1.
      builder.version(HttpClient.Version.HTTP_1_1);
    }
    client = builder.build();
  }

  @Override
  public ExportResult export(Batch batch, long deadlineNanos) throws InterruptedException {
    byte[] body;
    int length;
    MarshalContext context = contexts.get();
    int size = OtlpMarshaler.marshal(batch, context);
    if (json) {
      body = encoders.get().encode(batch.signal(), context.output().array(), 0, size);
      length = body.length;
    } else {
      body = context.output().array();
      length = size;
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(urls.get(batch.signal()))
            .timeout(Duration.ofNanos(Math.max(1, deadlineNanos - System.nanoTime())))
            .header("Content-Type", json ? "application/json" : "application/x-protobuf");
    config.headers().forEach(request::header);
    String compression = config.compression();
    if (!compression.isEmpty() && !"none".equals(compression)) {
      body = compress(compression, body, length);
      length = body.length;
      request.header("Content-Encoding", compression);
    }
    request.POST(HttpRequest.BodyPublishers.ofByteArray(body, 0, length));
    HttpResponse<byte[]> response;
    try {
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (HttpTimeoutException e) {
      return ExportResult.retryable("no answer before the deadline", 0);
    } catch (IOException e) {
      return ExportResult.retryable("cannot reach " + urls.get(batch.signal()) + ": " + e, 0);
    }
    return HttpAnswers.of(
        response.statusCode(), response.body(), json, response.headers().firstValue("Retry-After"));
  }

  private static byte[] compress(String compression, byte[] body, int length) {
    if ("zstd".equals(compression)) {
      return Zstd.compress(java.util.Arrays.copyOf(body, length), 1);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, length / 4));
    try (OutputStream compressing =
        "gzip".equals(compression)
            ? new GZIPOutputStream(out, 8192)
            : new DeflaterOutputStream(out)) {
      compressing.write(body, 0, length);
    } catch (IOException e) {
      throw new IllegalStateException("compressing into memory cannot fail", e);
    }
    return out.toByteArray();
  }

  @Override
  public void shutdown(long deadlineNanos) {
    // The JDK client closes its idle connections once it is no longer referenced (it has
    // close() only from JDK 21 on).
    client = null;
  }
}
