package dev.sluice.component;

/**
 * A configuration record that checks what its types alone cannot. The configuration loader calls
 * {@link #validate} once on every record it binds, the component's own and each section nested in
 * it (a {@code tls}, {@code sending_queue} or {@code auth} section, a record in a list or a map),
 * with problems placed under the section's key path; so a record checks only its own keys and never
 * calls its sections' {@code validate}.
 */
public interface Validatable {
  /** Reports every invalid value of this record's own keys (snake_case, relative to it). */
  void validate(ConfigProblems problems);
}
