package dev.sluice.service;

import dev.sluice.component.AuthReference;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import java.time.Duration;
import java.util.List;

/**
 * An exporter's configuration as its sending chain sees it under a cap on sending threads: the
 * queue's {@code num_consumers} at most the cap, every other key as configured. The exporter itself
 * keeps the configuration as written.
 */
record SendingThreadCap(ExporterConfig configured, QueueConfig sendingQueue)
    implements ExporterConfig {
  /** {@code config} itself when its queue runs no more than {@code maxThreads} threads. */
  static ExporterConfig apply(ExporterConfig config, int maxThreads) {
    QueueConfig queue = config.sendingQueue();
    if (!queue.enabled() || queue.numConsumers() <= maxThreads) {
      return config;
    }
    return new SendingThreadCap(
        config,
        new QueueConfig(
            true,
            maxThreads,
            queue.queueSize(),
            queue.sizer(),
            queue.blockOnOverflow(),
            queue.waitForResult(),
            queue.storage()));
  }

  @Override
  public RetryConfig retryOnFailure() {
    return configured.retryOnFailure();
  }

  @Override
  public Duration timeout() {
    return configured.timeout();
  }

  @Override
  public void validate(ConfigProblems problems) {
    configured.validate(problems);
  }

  @Override
  public List<AuthReference> authReferences() {
    return configured.authReferences();
  }
}
