package dev.sluice.core.pipeline;

import dev.sluice.core.component.ComponentId;
import dev.sluice.core.component.ComponentKind;
import dev.sluice.core.component.ComponentSettings;
import dev.sluice.core.component.Exporter;
import dev.sluice.core.component.ExporterConfig;
import dev.sluice.core.component.QueueConfig;
import dev.sluice.core.component.RetryConfig;
import dev.sluice.core.telemetry.MetricRegistry;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;

/** Builds pipeline parts around recording exporters. */
final class PipelineFixture {
  final MetricRegistry metrics = new MetricRegistry();

  ComponentSettings settings(ComponentKind kind, String id) {
    return new ComponentSettings(ComponentId.parse(id), kind, metrics);
  }

  QueuedExporter exporter(String id, Exporter exporter, ExporterConfig config) throws Exception {
    QueuedExporter queued =
        new QueuedExporter(settings(ComponentKind.EXPORTER, id), exporter, config);
    queued.start();
    return queued;
  }

  static ExporterConfig config(QueueConfig queue, RetryConfig retry) {
    return new ExporterConfig() {
      @Override
      public QueueConfig sendingQueue() {
        return queue;
      }

      @Override
      public RetryConfig retryOnFailure() {
        return retry;
      }

      @Override
      public Duration timeout() {
        return Duration.ofSeconds(5);
      }
    };
  }

  static QueueConfig queue(int consumers, long size) {
    return new QueueConfig(true, consumers, size, QueueConfig.Sizer.REQUESTS, false, false);
  }

  static RetryConfig fastRetry() {
    return new RetryConfig(
        true, Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofSeconds(30), 1.5, 0);
  }

  String prometheus() {
    StringWriter out = new StringWriter();
    try {
      metrics.writePrometheus(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }
}
