package dev.sluice.processor.batch;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.GoDuration;
import java.time.Duration;

/**
 * The {@code batch} processor's configuration, with the OpenTelemetry Collector's keys and
 * defaults. Sizes count spans, log records or metric data points.
 *
 * @param sendBatchSize a batch is sent once this many units are pending
 * @param sendBatchMaxSize no batch is larger than this; 0 means no cap
 * @param timeout pending data is sent after this long whatever its size; 0 sends at once
 */
public record BatchConfig(int sendBatchSize, int sendBatchMaxSize, Duration timeout)
    implements ComponentConfig {
  public static final BatchConfig DEFAULT = new BatchConfig(8192, 0, Duration.ofMillis(200));

  @Override
  public void validate(ConfigProblems problems) {
    if (sendBatchSize < 1) {
      problems.add("send_batch_size", "must be at least 1, was " + sendBatchSize);
    }
    if (sendBatchMaxSize < 0) {
      problems.add("send_batch_max_size", "must not be negative, was " + sendBatchMaxSize);
    } else if (sendBatchMaxSize > 0 && sendBatchMaxSize < sendBatchSize) {
      problems.add(
          "send_batch_max_size",
          "must be 0 (no cap) or at least send_batch_size ("
              + sendBatchSize
              + "), was "
              + sendBatchMaxSize);
    }
    if (timeout.isNegative()) {
      problems.add("timeout", "must not be negative, was " + GoDuration.format(timeout));
    }
  }
}
