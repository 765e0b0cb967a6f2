package dev.sluice.component;

import java.time.Duration;

/**
 * An exporter's configuration: its own keys plus the shared sending queue, retry and timeout.
 * Exporters without them (blackhole, debug) keep the defaults: no queue, no retry.
 */
public interface ExporterConfig extends ComponentConfig {
  default QueueConfig sendingQueue() {
    return QueueConfig.DISABLED;
  }

  default RetryConfig retryOnFailure() {
    return RetryConfig.DISABLED;
  }

  /** The limit on one send attempt. */
  default Duration timeout() {
    return Duration.ofSeconds(5);
  }
}
