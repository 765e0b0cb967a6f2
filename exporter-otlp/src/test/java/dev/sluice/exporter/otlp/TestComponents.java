package dev.sluice.exporter.otlp;

import dev.sluice.component.Admission;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.receiver.otlp.OtlpReceiver;
import dev.sluice.receiver.otlp.OtlpReceiverConfig;
import dev.sluice.receiver.otlp.OtlpReceiverFactory;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Sluice's own exporters and receivers for the exporter tests, made by their factories, started,
 * and stopped by the test's {@code cleanup} list.
 */
final class TestComponents {
  private TestComponents() {}

  /**
   * Starts an otlphttp exporter to {@code endpoint} with the default queue and retries and adds its
   * shutdown to {@code cleanup}.
   */
  static OtlpHttpExporter httpExporter(
      List<AutoCloseable> cleanup,
      String endpoint,
      String encoding,
      String compression,
      TlsClientConfig tls,
      Map<String, String> headers)
      throws Exception {
    return httpExporter(
        cleanup, endpoint, encoding, compression, CompressionParams.DEFAULT, tls, headers);
  }

  /** As {@link #httpExporter(List, String, String, String, TlsClientConfig, Map)}, at a level. */
  static OtlpHttpExporter httpExporter(
      List<AutoCloseable> cleanup,
      String endpoint,
      String encoding,
      String compression,
      CompressionParams compressionParams,
      TlsClientConfig tls,
      Map<String, String> headers)
      throws Exception {
    OtlpHttpExporterConfig config =
        new OtlpHttpExporterConfig(
            endpoint,
            "",
            "",
            "",
            encoding,
            compression,
            compressionParams,
            tls,
            headers,
            Duration.ofSeconds(5),
            QueueConfig.DEFAULT,
            RetryConfig.DEFAULT);
    OtlpHttpExporter exporter =
        (OtlpHttpExporter)
            new OtlpHttpExporterFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("otlphttp"),
                        ComponentKind.EXPORTER,
                        new MetricRegistry()),
                    config);
    exporter.start();
    cleanup.add(() -> exporter.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5)));
    return exporter;
  }

  /**
   * Starts an OTLP receiver with {@code protocols} that accepts every traces request, adding it to
   * {@code received} (under its lock), and adds its shutdown to {@code cleanup}.
   */
  static OtlpReceiver tracesReceiver(
      List<AutoCloseable> cleanup, OtlpReceiverConfig.Protocols protocols, List<OtlpIndex> received)
      throws Exception {
    RequestConsumer consumer =
        new RequestConsumer() {
          @Override
          public Admission consume(OtlpIndex request) {
            synchronized (received) {
              received.add(request);
            }
            return Admission.ACCEPTED;
          }

          @Override
          public long retryDelayMillis() {
            return 1000;
          }
        };
    Map<Signal, RequestConsumer> consumers = new EnumMap<>(Signal.class);
    consumers.put(Signal.TRACES, consumer);
    OtlpReceiver receiver =
        (OtlpReceiver)
            new OtlpReceiverFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("otlp"), ComponentKind.RECEIVER, new MetricRegistry()),
                    new OtlpReceiverConfig(protocols),
                    consumers);
    receiver.start();
    cleanup.add(() -> receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5)));
    return receiver;
  }
}
