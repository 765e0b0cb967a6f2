package dev.sluice.processor.resourcedetection;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.FunctionProcessor;
import dev.sluice.component.GoDuration;
import dev.sluice.component.Processor;
import dev.sluice.component.Scheduler;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.processor.resourcedetection.Detector.Detected;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;

/**
 * The {@code resourcedetection} stage: detects at {@link #start} (on a thread of its own, bounded
 * by {@code timeout} on the component's {@link Scheduler}; failing detection fails start, as in
 * Go), then sets what it found on every resource of every batch ({@link ResourceMerge}), counted as
 * processor items by a {@link FunctionProcessor}. Until started, batches pass unchanged.
 */
final class ResourceDetectionProcessor implements Processor {
  private final ResourceDetectionConfig config;
  private final Detection detection;
  private final ResourceMerge merge;
  private final Scheduler scheduler;
  private final FunctionProcessor<ResourceDetectionConfig> stage;
  private final Logger logger;
  private final String threadName;
  private final String failurePrefix;

  ResourceDetectionProcessor(
      ComponentSettings settings,
      ResourceDetectionConfig config,
      Signal signal,
      BatchConsumer next,
      Detection detection) {
    this.config = config;
    this.detection = detection;
    this.logger = settings.logger();
    this.merge = new ResourceMerge();
    this.scheduler = settings.scheduler();
    this.stage = new FunctionProcessor<>(settings, config, signal, merge, next);
    this.threadName = "sluice-resourcedetection-" + settings.id() + "-" + signal;
    this.failurePrefix = "processor " + settings.id() + ": ";
  }

  @Override
  public void start() throws Exception {
    logger.info("began detecting resource information");
    Detected detected;
    try {
      detected = detectWithinTimeout();
    } catch (DetectionException e) {
      // The collector's start failure names no component: say which one failed.
      throw new DetectionException(failurePrefix + e.getMessage(), true);
    }
    merge.set(detected.attributes(), detected.schemaUrl(), config.override());
    logger.info("detected resource information: " + detected.attributes());
  }

  private Detected detectWithinTimeout() throws Exception {
    long timeoutNanos = config.timeout().toNanos();
    long deadlineNanos = scheduler.nanoTime() + timeoutNanos;
    CompletableFuture<Detected> result = new CompletableFuture<>();
    TimeoutException timedOut = new TimeoutException();
    // Lookups can block past any deadline; the thread is left to finish (or be interrupted) alone.
    Thread worker =
        new Thread(
            () -> {
              try {
                result.complete(detection.run(deadlineNanos));
              } catch (Exception | Error e) {
                result.completeExceptionally(e);
              }
            },
            threadName);
    worker.setDaemon(true);
    Scheduler.Timer timer =
        scheduler.schedule(() -> result.completeExceptionally(timedOut), timeoutNanos);
    worker.start();
    try {
      return result.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause == timedOut) {
        throw timedOut(worker);
      }
      // The collector reports what fails its start; each failed try was logged as a warning.
      if (cause instanceof Exception exception) {
        throw exception;
      }
      throw (Error) cause;
    } finally {
      timer.cancel();
    }
  }

  private DetectionException timedOut(Thread worker) {
    // Read before interrupting: the interrupted lookup fails too, and would be named instead.
    String failures = detection.failuresSoFar();
    worker.interrupt();
    // A detector that failed and was still retrying is the reason to give, as when detection
    // gives up on its own just before the deadline.
    String timeout = GoDuration.format(config.timeout());
    if (!failures.isEmpty()) {
      return new DetectionException(
          "resource detection failed: "
              + failures
              + " (still failing at the timeout "
              + timeout
              + ")",
          true);
    }
    return new DetectionException(
        "resource detection did not finish within timeout " + timeout, true);
  }

  @Override
  public Admission consume(Batch batch) {
    return stage.consume(batch);
  }
}
