package dev.sluice.bench.naive;

import dev.sluice.component.ComponentConfig;

/** The {@code naive_protobuf} processor has no settings. */
public record NaiveProtobufConfig() implements ComponentConfig {}
