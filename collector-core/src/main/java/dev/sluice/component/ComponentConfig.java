package dev.sluice.component;

import java.util.List;

/**
 * A component's configuration: a record with defaults (from its factory) that the configuration
 * file overrides key by key. {@link #validate} reports what the types alone cannot; its nested
 * sections validate themselves (see {@link Validatable}).
 */
public interface ComponentConfig extends Validatable {
  /** Reports every invalid value of the component's own keys (snake_case). */
  @Override
  default void validate(ConfigProblems problems) {}

  /**
   * The authenticator extensions this configuration names ({@code auth.authenticator}), which the
   * loader checks against the extensions configured and started.
   */
  default List<AuthReference> authReferences() {
    return List.of();
  }
}
