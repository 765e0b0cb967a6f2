package dev.sluice.processor.resourcedetection;

import dev.sluice.component.Admission;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.testkit.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Makes processors over a {@link TestEnvironment} and runs requests through them. */
final class ProcessorRuns {
  /** Retries come fast in tests. */
  static final long TEST_BACKOFF_NANOS = Duration.ofMillis(5).toNanos();

  private ProcessorRuns() {}

  /**
   * Settings on a {@link ManualScheduler#sleepsAdvance} of their own: retries take no real time and
   * the start timeout falls only when a test moves the clock, so no test depends on the machine's
   * speed.
   */
  static ComponentSettings settings() {
    return settings(ManualScheduler.sleepsAdvance());
  }

  static ComponentSettings settings(Scheduler scheduler) {
    return new ComponentSettings(
        ComponentId.parse("resourcedetection"),
        ComponentKind.PROCESSOR,
        new MetricRegistry(),
        scheduler);
  }

  /** A processor whose output requests are collected into {@code outputs}. */
  static Processor processor(
      DetectionEnvironment environment,
      ResourceDetectionConfig config,
      Signal signal,
      List<byte[]> outputs) {
    return processor(settings(), environment, config, signal, outputs);
  }

  /** A processor with {@code settings} whose output requests are collected into {@code outputs}. */
  static Processor processor(
      ComponentSettings settings,
      DetectionEnvironment environment,
      ResourceDetectionConfig config,
      Signal signal,
      List<byte[]> outputs) {
    return new ResourceDetectionProcessorFactory(environment, TEST_BACKOFF_NANOS)
        .create(
            settings,
            config,
            signal,
            batch -> {
              outputs.add(OtlpMarshaler.toByteArray(batch));
              batch.clear();
              return Admission.ACCEPTED;
            });
  }

  /** Starts a processor and passes {@code request} through it; returns the request it emits. */
  static byte[] run(
      DetectionEnvironment environment,
      ResourceDetectionConfig config,
      Signal signal,
      byte[] request)
      throws Exception {
    return run(settings(), environment, config, signal, request);
  }

  /**
   * As {@link #run(DetectionEnvironment, ResourceDetectionConfig, Signal, byte[])}, with {@code
   * settings}.
   */
  static byte[] run(
      ComponentSettings settings,
      DetectionEnvironment environment,
      ResourceDetectionConfig config,
      Signal signal,
      byte[] request)
      throws Exception {
    List<byte[]> outputs = new ArrayList<>();
    Processor processor = processor(settings, environment, config, signal, outputs);
    processor.start();
    processor.consume(Batch.of(new OtlpIndexer().index(signal, request)));
    if (outputs.size() != 1) {
      throw new AssertionError("expected one request out, got " + outputs.size());
    }
    return outputs.get(0);
  }

  static ResourceDetectionConfig config(boolean override, String... detectors) {
    return new ResourceDetectionConfig(
        List.of(detectors),
        override,
        Duration.ofSeconds(5),
        Duration.ZERO,
        EnvDetectorConfig.DEFAULT,
        SystemDetectorConfig.DEFAULT);
  }
}
