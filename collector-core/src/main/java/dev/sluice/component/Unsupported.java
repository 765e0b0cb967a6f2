package dev.sluice.component;

/**
 * The type of a configuration key that the OpenTelemetry Collector has and Sluice accepts only so
 * that the Collector's files load unchanged: any value is taken, with a warning at the key that it
 * is ignored. A record component of this type is {@link #PRESENT} when the key is written, whatever
 * its value, and null when it is left out.
 */
public final class Unsupported {
  /** The one value: the key was written. */
  public static final Unsupported PRESENT = new Unsupported();

  /** What the warning says about such a key. */
  public static final String MESSAGE = "is not supported by Sluice and is ignored";

  private Unsupported() {}

  @Override
  public String toString() {
    return "unsupported";
  }
}
