package dev.sluice.connector.forward;

import dev.sluice.component.ComponentConfig;

/** The {@code forward} connector has no settings. */
public record ForwardConfig() implements ComponentConfig {}
