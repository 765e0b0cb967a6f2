package dev.sluice.testkit;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.service.QueuedExporter;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;

/** Builds pipeline parts around recording exporters. */
public final class PipelineFixture {
  public final MetricRegistry metrics = new MetricRegistry();

  public ComponentSettings settings(ComponentKind kind, String id) {
    return new ComponentSettings(ComponentId.parse(id), kind, metrics);
  }

  public QueuedExporter exporter(String id, Exporter exporter, ExporterConfig config)
      throws Exception {
    QueuedExporter queued =
        new QueuedExporter(settings(ComponentKind.EXPORTER, id), exporter, config);
    queued.start();
    return queued;
  }

  public static ExporterConfig config(QueueConfig queue, RetryConfig retry) {
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

  public static QueueConfig queue(int consumers, long size) {
    return new QueueConfig(true, consumers, size, QueueConfig.Sizer.REQUESTS, false, false);
  }

  public static RetryConfig fastRetry() {
    return new RetryConfig(
        true, Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofSeconds(30), 1.5, 0);
  }

  public String prometheus() {
    StringWriter out = new StringWriter();
    try {
      metrics.writePrometheus(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }
}
