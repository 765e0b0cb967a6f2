package dev.sluice.processor.resourcedetection;

/**
 * A detector could not detect. A transient failure (a lookup that may answer later) is retried
 * until the timeout; a permanent one (a malformed environment variable) is not.
 */
final class DetectionException extends Exception {
  private static final long serialVersionUID = 1L;

  private final boolean permanent;

  DetectionException(String message, boolean permanent) {
    super(message);
    this.permanent = permanent;
  }

  boolean permanent() {
    return permanent;
  }
}
