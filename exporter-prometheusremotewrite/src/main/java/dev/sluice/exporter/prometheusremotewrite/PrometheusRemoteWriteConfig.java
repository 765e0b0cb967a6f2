package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.component.AuthConfig;
import dev.sluice.component.AuthReference;
import dev.sluice.component.AuthSide;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.GoDuration;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.Unsupported;
import dev.sluice.prometheus.LabelNames;
import dev.sluice.prometheus.TranslationStrategy;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The {@code prometheusremotewrite} exporter's configuration, with the OpenTelemetry Collector's
 * keys and defaults. The HTTP client's keys may stand at the top level (the Collector's older form)
 * or under {@code http}, which wins when present.
 *
 * @param endpoint the remote-write URL
 * @param tls TLS for an {@code https} endpoint
 * @param headers headers added to every request (the remote-write ones cannot be replaced)
 * @param auth the authenticator that adds credentials to each request, off unless present
 * @param compression {@code snappy}, the only one remote write has
 * @param http the HTTP client's keys in their own section
 * @param namespace prefix of every metric name
 * @param externalLabels labels added to every series that lacks them
 * @param maxBatchSizeBytes the largest request, uncompressed; a larger batch is sent as several
 * @param remoteWriteQueue the Collector's name for the sending queue's size and consumers
 * @param sendingQueue the sending queue: its {@code storage} (the write-ahead log); whether it is
 *     on, its size and its consumers come from {@code remote_write_queue}
 * @param retryOnFailure retries of 5xx and 429 answers, and of unreachable endpoints
 * @param timeout the limit on one request
 * @param resourceToTelemetryConversion resource attributes as labels of every series
 * @param resourceConstantLabels resource attributes as labels, chosen by {@code included} and
 *     {@code excluded} names or globs
 * @param targetInfo whether resources make {@code target_info} series
 * @param disableScopeInfo leave out the {@code otel_scope_*} labels
 * @param addMetricSuffixes deprecated by the Collector for {@code translation_strategy}: false
 *     means {@code UnderscoreEscapingWithoutSuffixes}
 * @param translationStrategy how names are escaped and suffixed; empty: from {@code
 *     add_metric_suffixes}
 * @param sendMetadata with remote write 1.0, send each metric's type, help and unit after its
 *     series (2.0 always carries them)
 * @param protobufMessage {@code prometheus.WriteRequest} (1.0) or {@code
 *     io.prometheus.write.v2.Request} (2.0)
 */
public record PrometheusRemoteWriteConfig(
    String endpoint,
    TlsClientConfig tls,
    Map<String, String> headers,
    @OptionalSection AuthConfig auth,
    String compression,
    @OptionalSection HttpSettings http,
    String namespace,
    Map<String, String> externalLabels,
    int maxBatchSizeBytes,
    RemoteWriteQueue remoteWriteQueue,
    @OptionalSection QueueConfig sendingQueue,
    RetryConfig retryOnFailure,
    Duration timeout,
    ResourceLabelsConfig resourceToTelemetryConversion,
    ResourceLabelsConfig resourceConstantLabels,
    TargetInfo targetInfo,
    boolean disableScopeInfo,
    boolean addMetricSuffixes,
    String translationStrategy,
    boolean sendMetadata,
    String protobufMessage,
    Unsupported maxBatchRequestParallelism,
    Unsupported wal,
    Unsupported includeMetadataKeys,
    boolean convertExplicitHistogramsToNhcb,
    boolean keepClassicHistograms,
    Unsupported proxyUrl,
    Unsupported readBufferSize,
    Unsupported writeBufferSize,
    Unsupported maxIdleConns,
    Unsupported maxIdleConnsPerHost,
    Unsupported maxConnsPerHost,
    Unsupported idleConnTimeout,
    Unsupported disableKeepAlives)
    implements ExporterConfig {

  public static final String V1 = "prometheus.WriteRequest";
  public static final String V2 = "io.prometheus.write.v2.Request";

  /** The HTTP client's keys under {@code http}. */
  public record HttpSettings(
      String endpoint,
      TlsClientConfig tls,
      Map<String, String> headers,
      @OptionalSection AuthConfig auth,
      String compression,
      Duration timeout,
      Unsupported proxyUrl,
      Unsupported readBufferSize,
      Unsupported writeBufferSize,
      Unsupported maxIdleConns,
      Unsupported maxIdleConnsPerHost,
      Unsupported maxConnsPerHost,
      Unsupported idleConnTimeout,
      Unsupported disableKeepAlives) {
    static final HttpSettings DEFAULT =
        new HttpSettings(
            "",
            TlsClientConfig.DEFAULT,
            Map.of(),
            AuthConfig.DEFAULT,
            "snappy",
            Duration.ZERO,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null);
  }

  /** The Collector's {@code remote_write_queue}: the sending queue's switch, size and threads. */
  public record RemoteWriteQueue(boolean enabled, int queueSize, int numConsumers) {}

  /**
   * {@code enabled} and {@code exclude_service_attributes}, or {@code included}/{@code excluded}.
   */
  public record ResourceLabelsConfig(
      boolean enabled,
      boolean excludeServiceAttributes,
      List<String> included,
      List<String> excluded) {
    static final ResourceLabelsConfig OFF =
        new ResourceLabelsConfig(false, false, List.of(), List.of());

    boolean isEmpty() {
      return !enabled && !excludeServiceAttributes && included.isEmpty() && excluded.isEmpty();
    }
  }

  public record TargetInfo(boolean enabled) {}

  public static final PrometheusRemoteWriteConfig DEFAULT =
      new PrometheusRemoteWriteConfig(
          "",
          TlsClientConfig.DEFAULT,
          Map.of(),
          AuthConfig.DEFAULT,
          "snappy",
          HttpSettings.DEFAULT,
          "",
          Map.of(),
          3_000_000,
          new RemoteWriteQueue(true, 10_000, 5),
          QueueConfig.DEFAULT,
          new RetryConfig(
              true,
              Duration.ofMillis(50),
              RetryConfig.DEFAULT.maxInterval(),
              RetryConfig.DEFAULT.maxElapsedTime(),
              RetryConfig.DEFAULT.multiplier(),
              RetryConfig.DEFAULT.randomizationFactor()),
          Duration.ofSeconds(5),
          ResourceLabelsConfig.OFF,
          ResourceLabelsConfig.OFF,
          new TargetInfo(true),
          false,
          true,
          "",
          false,
          V1,
          null,
          null,
          null,
          false,
          false,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null);

  /**
   * The sending queue is switched and sized by {@code remote_write_queue}, as in the Collector;
   * {@code sending_queue} gives the rest, its {@code storage} above all.
   */
  public PrometheusRemoteWriteConfig {
    QueueConfig queue = sendingQueue != null ? sendingQueue : QueueConfig.DEFAULT;
    if (remoteWriteQueue != null) {
      sendingQueue =
          new QueueConfig(
              remoteWriteQueue.enabled(),
              remoteWriteQueue.numConsumers(),
              remoteWriteQueue.queueSize(),
              QueueConfig.Sizer.REQUESTS,
              queue.blockOnOverflow(),
              queue.waitForResult(),
              queue.storage());
    }
  }

  private static final Set<String> RESERVED_HEADERS =
      Set.of("content-encoding", "content-type", "user-agent", "x-prometheus-remote-write-version");

  /** The endpoint in effect: {@code http.endpoint} when the section is there. */
  String url() {
    return http != null ? http.endpoint() : endpoint;
  }

  TlsClientConfig tlsInEffect() {
    return http != null ? http.tls() : tls;
  }

  Map<String, String> headersInEffect() {
    return http != null ? http.headers() : headers;
  }

  AuthConfig authInEffect() {
    return http != null ? http.auth() : auth;
  }

  /** The per-request limit: {@code http.timeout} when set there, else {@code timeout}. */
  @Override
  public Duration timeout() {
    return http != null && http.timeout().compareTo(Duration.ZERO) > 0 ? http.timeout() : timeout;
  }

  @Override
  public RetryConfig retryOnFailure() {
    return retryOnFailure;
  }

  @Override
  public List<AuthReference> authReferences() {
    List<AuthReference> references = new ArrayList<>();
    AuthConfig.reference(
        authInEffect(), http != null ? "http.auth" : "auth", AuthSide.CLIENT, references);
    return references;
  }

  /**
   * The strategy in effect: {@code translation_strategy}, else from {@code add_metric_suffixes}.
   */
  TranslationStrategy strategy() {
    if (!translationStrategy.isEmpty()) {
      return TranslationStrategy.of(translationStrategy)
          .orElse(TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES);
    }
    return addMetricSuffixes
        ? TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES
        : TranslationStrategy.UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES;
  }

  /** Which resource attributes become labels. */
  ResourceAttributes resourceAttributes() {
    ResourceLabelsConfig chosen =
        resourceConstantLabels.isEmpty() ? resourceToTelemetryConversion : resourceConstantLabels;
    if (!chosen.included().isEmpty() || !chosen.excluded().isEmpty()) {
      if (chosen.included().size() == 1
          && chosen.included().get(0).equals("*")
          && chosen.excluded().isEmpty()) {
        return new ResourceAttributes(ResourceAttributes.Mode.ALL, List.of(), List.of());
      }
      return new ResourceAttributes(
          ResourceAttributes.Mode.PATTERNS, chosen.included(), chosen.excluded());
    }
    if (!chosen.enabled()) {
      return ResourceAttributes.NONE;
    }
    return new ResourceAttributes(
        chosen.excludeServiceAttributes()
            ? ResourceAttributes.Mode.ALL_BUT_SERVICE
            : ResourceAttributes.Mode.ALL,
        List.of(),
        List.of());
  }

  TranslationSettings translationSettings() {
    return new TranslationSettings(
        namespace,
        strategy(),
        externalLabels,
        targetInfo.enabled(),
        !disableScopeInfo,
        resourceAttributes(),
        sendMetadata);
  }

  @Override
  public void validate(ConfigProblems problems) {
    String key = http != null ? "http.endpoint" : "endpoint";
    String url = url();
    if (url.isEmpty()) {
      problems.add(key, "is required: the remote-write URL");
    } else {
      try {
        URI uri = new URI(url);
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
          problems.add(key, "must be an http:// or https:// URL, was \"" + url + "\"");
        } else if (uri.getHost() == null) {
          problems.add(key, "has no host: \"" + url + "\"");
        }
      } catch (URISyntaxException e) {
        problems.add(key, "is not a URL: " + e.getMessage());
      }
    }
    String compressionInEffect = http != null ? http.compression() : compression;
    if (!compressionInEffect.isEmpty() && !"snappy".equals(compressionInEffect)) {
      problems.add(
          http != null ? "http.compression" : "compression",
          "must be snappy (remote write bodies are snappy), was \"" + compressionInEffect + "\"");
    }
    for (String header : headersInEffect().keySet()) {
      if (RESERVED_HEADERS.contains(header.toLowerCase(Locale.ROOT))) {
        problems.add(
            (http != null ? "http.headers." : "headers.") + header,
            "is set by the remote-write protocol and cannot be replaced");
      }
    }
    LabelNames labelNames = new LabelNames(strategy());
    for (Map.Entry<String, String> label : externalLabels.entrySet()) {
      if (label.getKey().isEmpty() || label.getValue() == null || label.getValue().isEmpty()) {
        problems.add("external_labels", "has an empty name or value: \"" + label.getKey() + "\"");
      } else if (labelNames.label(label.getKey()).isEmpty()) {
        problems.add("external_labels." + label.getKey(), "cannot be made a Prometheus label name");
      }
    }
    if (maxBatchSizeBytes < 0) {
      problems.add("max_batch_size_bytes", "must not be negative, was " + maxBatchSizeBytes);
    }
    if (remoteWriteQueue.queueSize() < 0) {
      problems.add("remote_write_queue.queue_size", "must not be negative");
    } else if (remoteWriteQueue.enabled() && remoteWriteQueue.queueSize() == 0) {
      problems.add("remote_write_queue.queue_size", "is 0: an enabled queue needs room");
    }
    if (remoteWriteQueue.numConsumers() < 0) {
      problems.add("remote_write_queue.num_consumers", "must not be negative");
    } else if (remoteWriteQueue.enabled() && remoteWriteQueue.numConsumers() == 0) {
      problems.add("remote_write_queue.num_consumers", "is 0: an enabled queue needs a consumer");
    }
    if (!translationStrategy.isEmpty() && TranslationStrategy.of(translationStrategy).isEmpty()) {
      List<String> known = new ArrayList<>();
      for (TranslationStrategy s : TranslationStrategy.values()) {
        known.add(s.configName());
      }
      problems.add(
          "translation_strategy",
          "\"" + translationStrategy + "\" is not one of " + String.join(", ", known));
    } else if (V1.equals(protobufMessage) && !strategy().escapes()) {
      problems.add(
          "translation_strategy",
          strategy().configName() + " keeps UTF-8 names, which need remote write 2.0");
    }
    if (!V1.equals(protobufMessage) && !V2.equals(protobufMessage)) {
      problems.add(
          "protobuf_message",
          "\""
              + protobufMessage
              + "\" is neither "
              + V1
              + " (remote write 1.0) nor "
              + V2
              + " (2.0)");
    }
    if (!resourceConstantLabels.isEmpty()
        && (resourceConstantLabels.enabled()
            || resourceConstantLabels.excludeServiceAttributes())) {
      problems.add(
          "resource_constant_labels",
          "takes included and excluded; enabled and exclude_service_attributes belong to"
              + " resource_to_telemetry_conversion");
    }
    if (!resourceToTelemetryConversion.isEmpty() && !resourceConstantLabels.isEmpty()) {
      problems.add(
          "resource_constant_labels",
          "cannot be set with resource_to_telemetry_conversion (its deprecated form)");
    }
    for (ResourceLabelsConfig section :
        List.of(resourceToTelemetryConversion, resourceConstantLabels)) {
      if ((section.enabled() || section.excludeServiceAttributes())
          && (!section.included().isEmpty() || !section.excluded().isEmpty())) {
        problems.add(
            section == resourceConstantLabels
                ? "resource_constant_labels"
                : "resource_to_telemetry_conversion",
            "cannot take both enabled/exclude_service_attributes and included/excluded");
      }
    }
    if (wal != null) {
      problems.add(
          "wal",
          "is not supported: set sending_queue.storage to a file_storage extension, whose"
              + " write-ahead log keeps every batch until it is sent");
    }
    if (convertExplicitHistogramsToNhcb) {
      problems.add(
          "convert_explicit_histograms_to_nhcb",
          "is not supported: histograms are sent as classic _bucket series");
    }
    if (timeout.isNegative()) {
      problems.add("timeout", "must not be negative, was " + GoDuration.format(timeout));
    }
  }
}
