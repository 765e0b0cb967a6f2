package dev.sluice.exporter.blackhole;

import dev.sluice.core.component.ExporterConfig;

/** The {@code blackhole} exporter has no settings. */
public record BlackholeConfig() implements ExporterConfig {}
