package dev.sluice.testkit;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.service.sender.SendingChain;
import java.time.Duration;

/** Builds pipeline parts around recording exporters. */
public final class PipelineFixture {
  public final MetricRegistry metrics = new MetricRegistry();
  private final Scheduler scheduler;

  /** Parts on the shared system scheduler. */
  public PipelineFixture() {
    this(Scheduler.shared());
  }

  /** Parts whose timers run on {@code scheduler} (a {@link ManualScheduler}, say). */
  public PipelineFixture(Scheduler scheduler) {
    this.scheduler = scheduler;
  }

  public ComponentSettings settings(ComponentKind kind, String id) {
    return new ComponentSettings(ComponentId.parse(id), kind, metrics, scheduler);
  }

  /** A started sending chain around {@code exporter}. */
  public SendingChain exporter(String id, Exporter exporter, ExporterConfig config)
      throws Exception {
    SendingChain chain = new SendingChain(settings(ComponentKind.EXPORTER, id), exporter, config);
    chain.start();
    return chain;
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
    return new QueueConfig(true, consumers, size, QueueConfig.Sizer.REQUESTS, false, false, null);
  }

  public static RetryConfig fastRetry() {
    return new RetryConfig(
        true, Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofSeconds(30), 1.5, 0);
  }

  /** The metrics page of the parts built here. */
  public String prometheus() {
    return MetricsText.of(metrics);
  }
}
