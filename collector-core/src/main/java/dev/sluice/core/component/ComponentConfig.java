package dev.sluice.core.component;

/**
 * A component's configuration: a record with defaults (from its factory) that the configuration
 * file overrides key by key. {@link #validate} reports what the types alone cannot.
 */
public interface ComponentConfig {
  /** Reports every invalid value; keys are the configuration's snake_case keys. */
  default void validate(ConfigProblems problems) {}
}
