package dev.sluice.component;

import java.util.List;

/**
 * A component's configuration: a record with defaults (from its factory) that the configuration
 * file overrides key by key. {@link #validate} reports what the types alone cannot.
 */
public interface ComponentConfig {
  /** Reports every invalid value; keys are the configuration's snake_case keys. */
  default void validate(ConfigProblems problems) {}

  /**
   * The authenticator extensions this configuration names ({@code auth.authenticator}), which the
   * loader checks against the extensions configured and started.
   */
  default List<AuthReference> authReferences() {
    return List.of();
  }
}
