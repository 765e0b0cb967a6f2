package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.component.ClientAuthenticator;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.Host;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.http.HttpClient;
import dev.sluice.pdata.Batch;
import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import org.xerial.snappy.Snappy;

/**
 * Sends metrics to a Prometheus remote-write endpoint (1.0, or 2.0 when configured): each batch
 * translated into series by the Collector's rules ({@link Translator}), written as {@code
 * prometheus.WriteRequest}s (or {@code io.prometheus.write.v2.Request}s) of at most {@code
 * max_batch_size_bytes}, snappy-compressed and POSTed over kept-alive HTTP/1.1 connections. The
 * encoder, its buffers and the compressed body are the sending thread's own and kept between
 * batches; the HTTP client writes the body from there without a copy.
 *
 * <p>A batch that makes several requests is sent in order; when one fails, the batch's result is
 * that failure, and a retry sends the whole batch again: receivers take the samples already written
 * as duplicates (same series, timestamp and value) and ignore them.
 */
final class PrometheusRemoteWriteExporter implements Exporter {
  private static final String PREFIX = "otelcol_exporter_prometheusremotewrite_";
  private static final String WRITTEN_SAMPLES = "X-Prometheus-Remote-Write-Samples-Written";
  private static final String WRITTEN_HISTOGRAMS = "X-Prometheus-Remote-Write-Histograms-Written";
  private static final String WRITTEN_EXEMPLARS = "X-Prometheus-Remote-Write-Exemplars-Written";

  private final ComponentSettings settings;
  private final PrometheusRemoteWriteConfig config;
  private final URI url;
  private final ThreadLocal<RemoteWriteEncoder> encoders;
  private final ThreadLocal<byte[][]> compressed = ThreadLocal.withInitial(() -> new byte[1][]);
  private final MetricRegistry.Counter failedTranslations;
  private final MetricRegistry.Counter translatedSeries;
  private final MetricRegistry.Counter sentBatches;
  private final boolean v2;
  private final MetricRegistry.Counter writtenSamples;
  private final MetricRegistry.Counter writtenHistograms;
  private final MetricRegistry.Counter writtenExemplars;
  private final RateLimitedLog missingWrittenHeaders;
  private volatile Client client;
  private volatile ClientAuthenticator authenticator;

  private record Client(HttpClient http, HttpClient.Route route) {}

  PrometheusRemoteWriteExporter(ComponentSettings settings, PrometheusRemoteWriteConfig config) {
    this.settings = settings;
    this.config = config;
    this.url = URI.create(config.url());
    TranslationSettings translation = config.translationSettings();
    int maxBytes = config.maxBatchSizeBytes() == 0 ? 3_000_000 : config.maxBatchSizeBytes();
    this.v2 = PrometheusRemoteWriteConfig.V2.equals(config.protobufMessage());
    boolean version2 = v2;
    this.encoders =
        ThreadLocal.withInitial(() -> new RemoteWriteEncoder(translation, maxBytes, version2));
    MetricRegistry metrics = settings.metrics();
    String[] labels = {"exporter", settings.id().toString(), "url", url.toString()};
    failedTranslations =
        metrics.counter(
            PREFIX + "failed_translations",
            "Number of translation operations that failed to translate metrics from Otel to"
                + " Prometheus",
            labels);
    translatedSeries =
        metrics.counter(
            PREFIX + "translated_time_series",
            "Number of Prometheus time series that were translated from OTel metrics",
            labels);
    sentBatches =
        metrics.counter(
            PREFIX + "sent_batches", "Number of remote write request batches sent", labels);
    writtenSamples =
        metrics.counter(
            PREFIX + "written_samples",
            "Number of samples the remote end says it wrote (remote write 2.0)",
            labels);
    writtenHistograms =
        metrics.counter(
            PREFIX + "written_histograms",
            "Number of histograms the remote end says it wrote (remote write 2.0)",
            labels);
    writtenExemplars =
        metrics.counter(
            PREFIX + "written_exemplars",
            "Number of exemplars the remote end says it wrote (remote write 2.0)",
            labels);
    missingWrittenHeaders = new RateLimitedLog(settings.logger(), Level.WARNING, 60_000);
  }

  @Override
  public void start() throws IOException {
    start(Host.NONE);
  }

  @Override
  public void start(Host host) throws IOException {
    if (config.authInEffect() != null) {
      authenticator = host.clientAuthenticator(config.authInEffect());
    }
    HttpClient http =
        new HttpClient(
            "sluice-exporter-" + settings.id() + "-io",
            "https".equals(url.getScheme()) ? config.tlsInEffect() : null,
            "exporters." + settings.id() + (config.http() != null ? ".http" : "") + ".tls",
            settings.logger(),
            config.timeout(),
            HttpClient.MAX_RESPONSE_BYTES,
            HttpClient.IDLE_TIMEOUT);
    Map<String, String> headers = new LinkedHashMap<>(config.headersInEffect());
    headers.put("Content-Encoding", "snappy");
    headers.put(
        "Content-Type",
        v2
            ? "application/x-protobuf;proto=io.prometheus.write.v2.Request"
            : "application/x-protobuf");
    headers.put("User-Agent", "Sluice");
    headers.put("X-Prometheus-Remote-Write-Version", v2 ? "2.0.0" : "0.1.0");
    client = new Client(http, http.route(url, headers));
  }

  @Override
  public ExportResult export(Batch batch, long deadlineNanos) throws InterruptedException {
    Client current = client;
    if (current == null) {
      return ExportResult.retryable("the exporter is not running", 0);
    }
    RemoteWriteEncoder encoder = encoders.get();
    try {
      long dropped = encoder.encode(batch);
      if (dropped > 0) {
        failedTranslations.increment();
      }
      translatedSeries.add(encoder.seriesCount());
      while (encoder.nextRequest()) {
        ExportResult result = send(current, encoder.request(), deadlineNanos);
        if (result.outcome() != ExportResult.Outcome.SUCCESS) {
          return result;
        }
        sentBatches.increment();
      }
      return dropped > 0
          ? ExportResult.partialSuccess(dropped, encoder.problem())
          : ExportResult.SUCCESS;
    } finally {
      encoder.release();
    }
  }

  private ExportResult send(Client current, Buf request, long deadlineNanos)
      throws InterruptedException {
    byte[][] holder = compressed.get();
    int max = Snappy.maxCompressedLength(request.size);
    if (holder[0] == null || holder[0].length < max) {
      holder[0] = new byte[max];
    }
    int length;
    try {
      length = Snappy.compress(request.array, 0, request.size, holder[0], 0);
    } catch (IOException e) {
      return ExportResult.permanent("snappy could not compress the request: " + e.getMessage());
    }
    ClientAuthenticator auth = authenticator;
    HttpClient.Response response;
    try {
      // No copy: the buffer is this thread's, and post() returns once Netty is done with it.
      response =
          current
              .http()
              .post(
                  current.route(),
                  holder[0],
                  0,
                  length,
                  auth != null ? auth.requestHeaders() : Map.of(),
                  deadlineNanos);
    } catch (TimeoutException e) {
      return ExportResult.retryable("no answer before the deadline", 0);
    } catch (HttpClient.ResponseTooLargeException e) {
      return RemoteWriteAnswers.of(e.status(), null, e.retryAfter());
    } catch (IOException e) {
      return ExportResult.retryable("cannot reach " + url + ": " + e, 0);
    } finally {
      if (holder[0].length > RemoteWriteEncoder.MAX_RETAINED_BYTES) {
        holder[0] = null;
      }
    }
    ExportResult result =
        RemoteWriteAnswers.of(response.status(), response.body(), response.retryAfter());
    if (v2 && result.outcome() == ExportResult.Outcome.SUCCESS) {
      countWritten(response);
    }
    return result;
  }

  /**
   * Remote write 2.0 receivers say what they wrote in {@code X-Prometheus-Remote-Write-*-Written};
   * an answer without them suggests a receiver of 1.0 only, which may drop what it cannot read.
   */
  private void countWritten(HttpClient.Response response) {
    String samples = response.header(WRITTEN_SAMPLES);
    if (samples == null) {
      missingWrittenHeaders.log(
          url
              + " answered without "
              + WRITTEN_SAMPLES
              + ": it may not take remote write 2.0 and may be dropping data");
      return;
    }
    add(writtenSamples, samples);
    add(writtenHistograms, response.header(WRITTEN_HISTOGRAMS));
    add(writtenExemplars, response.header(WRITTEN_EXEMPLARS));
  }

  private static void add(MetricRegistry.Counter counter, String header) {
    long value = RemoteWriteAnswers.writtenCount(header);
    if (value > 0) {
      counter.add(value);
    }
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
