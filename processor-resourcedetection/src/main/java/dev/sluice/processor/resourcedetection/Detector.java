package dev.sluice.processor.resourcedetection;

import java.util.Map;

/** One detector: finds resource attributes of where the collector runs. */
interface Detector {
  /** What one detection found. */
  record Detected(Map<String, String> attributes, String schemaUrl) {}

  /** The detector's name in {@code detectors}. */
  String name();

  /** Detects; may block on lookups, and is then interrupted when detection times out. */
  Detected detect() throws DetectionException, InterruptedException;
}
