package dev.sluice.exporter.blackhole;

import dev.sluice.component.ExporterConfig;

/** The {@code blackhole} exporter has no settings. */
public record BlackholeConfig() implements ExporterConfig {}
