package dev.sluice.pdata.view;

import dev.sluice.pdata.internal.ValueFormats;

/**
 * Scalar values as text the way the OpenTelemetry Collector's Go code writes them ({@code
 * AsString}), for components that match or compare values as text: an int in decimal, a double in
 * Go's shortest form.
 */
public final class ValueText {
  /** The most bytes {@link #decimal} writes. */
  public static final int DECIMAL_MAX_BYTES = ValueFormats.decimalMaxBytes();

  private ValueText() {}

  /** Writes {@code value} in decimal at {@code out[at]}; returns the end. */
  public static int decimal(long value, byte[] out, int at) {
    return ValueFormats.decimal(value, out, at);
  }

  /**
   * A double as Go's {@code AsString} writes it: shortest digits, plain between 1e-6 and 1e21,
   * otherwise in exponent form ({@code 1.5e-7}, {@code 1e+21}); NaN and infinities as the error
   * text Go puts there.
   */
  public static String goDouble(double value) {
    return ValueFormats.goDouble(value);
  }
}
