package dev.sluice.collector;

import java.util.Locale;

/**
 * How the collector sizes what the configuration does not say: its pipeline bound and its
 * exporters' sending threads. {@code bin/sluice --profile NAME} (or {@code SLUICE_PROFILE}) passes
 * the profile as the system property {@value #PROPERTY}; without it the collector runs with the
 * default sizing, unchanged.
 */
enum Profile {
  /** Agents and gateways: the pipeline bound is a third of the heap, threads as configured. */
  DEFAULT,
  /** A collector beside each workload: a small heap, and as few threads as keep up with it. */
  SIDECAR;

  static final String PROPERTY = "sluice.profile";

  /** The profile of this JVM, from {@value #PROPERTY}. */
  static Profile current() {
    return parse(System.getProperty(PROPERTY));
  }

  /** {@code null} or empty is the default; any other name must be a profile's. */
  static Profile parse(String name) {
    if (name == null || name.isBlank()) {
      return DEFAULT;
    }
    for (Profile profile : values()) {
      if (profile.label().equals(name.strip().toLowerCase(Locale.ROOT))) {
        return profile;
      }
    }
    throw new IllegalArgumentException(
        "unknown profile '" + name + "' (" + PROPERTY + "); profiles: default, sidecar");
  }

  String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
