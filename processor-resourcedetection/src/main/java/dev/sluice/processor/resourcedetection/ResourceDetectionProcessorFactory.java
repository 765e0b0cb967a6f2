package dev.sluice.processor.resourcedetection;

import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.ProcessorFactory;
import dev.sluice.pdata.Signal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The {@code resourcedetection} processor type, with the {@code env} and {@code system} detectors.
 */
public final class ResourceDetectionProcessorFactory
    implements ProcessorFactory<ResourceDetectionConfig> {
  /** The first wait before a failed detector is tried again (Go's backoff starts there too). */
  static final long INITIAL_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final DetectionEnvironment environment;
  private final long initialBackoffNanos;

  /** Detects on the machine this JVM runs on. */
  public ResourceDetectionProcessorFactory() {
    this(DetectionEnvironment.host());
  }

  /** Detects in {@code environment}: for tests and benchmarks that need known attributes. */
  public ResourceDetectionProcessorFactory(DetectionEnvironment environment) {
    this(environment, INITIAL_BACKOFF_NANOS);
  }

  ResourceDetectionProcessorFactory(DetectionEnvironment environment, long initialBackoffNanos) {
    this.environment = environment;
    this.initialBackoffNanos = initialBackoffNanos;
  }

  @Override
  public String type() {
    return "resourcedetection";
  }

  @Override
  public Class<ResourceDetectionConfig> configType() {
    return ResourceDetectionConfig.class;
  }

  @Override
  public ResourceDetectionConfig defaultConfig() {
    return ResourceDetectionConfig.DEFAULT;
  }

  @Override
  public Processor create(
      ComponentSettings settings,
      ResourceDetectionConfig config,
      Signal signal,
      BatchConsumer next) {
    Logger logger = settings.logger();
    Detection detection =
        new Detection(detectors(config, logger), initialBackoffNanos, settings.scheduler(), logger);
    return new ResourceDetectionProcessor(settings, config, signal, next, detection);
  }

  private List<Detector> detectors(ResourceDetectionConfig config, Logger logger) {
    List<Detector> detectors = new ArrayList<>();
    for (String name : config.detectorNames()) {
      switch (name) {
        case ResourceDetectionConfig.ENV ->
            detectors.add(new EnvDetector(config.env(), environment));
        case ResourceDetectionConfig.SYSTEM ->
            detectors.add(new SystemDetector(config.system(), environment, logger));
        default ->
            // validate() has refused it already; a config made in code may still hold one.
            throw new IllegalArgumentException(
                "unsupported detector "
                    + ResourceDetectionConfig.quote(name)
                    + "; this build has: "
                    + String.join(", ", ResourceDetectionConfig.SUPPORTED_DETECTORS));
      }
    }
    return detectors;
  }
}
