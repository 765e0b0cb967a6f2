package dev.sluice.exporter.debug;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.ExporterConfig;

/**
 * The {@code debug} exporter's configuration, with the OpenTelemetry Collector's keys and defaults.
 *
 * @param verbosity {@code basic} (a line of counts per batch), {@code normal} (and a line of
 *     OTLP/JSON per span, data point's metric or log record) or {@code detailed} (the whole batch
 *     as indented OTLP/JSON)
 * @param samplingInitial batches written in full each second before sampling starts
 * @param samplingThereafter after that, one batch in this many is written each second
 * @param useInternalLogger write through the collector's log (true) or straight to stdout
 */
public record DebugConfig(
    Verbosity verbosity, int samplingInitial, int samplingThereafter, boolean useInternalLogger)
    implements ExporterConfig {
  public static final DebugConfig DEFAULT = new DebugConfig(Verbosity.BASIC, 2, 1, true);

  public enum Verbosity {
    BASIC,
    NORMAL,
    DETAILED
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (samplingInitial < 0) {
      problems.add("sampling_initial", "must not be negative, was " + samplingInitial);
    }
    if (samplingThereafter < 1) {
      problems.add("sampling_thereafter", "must be at least 1, was " + samplingThereafter);
    }
  }
}
