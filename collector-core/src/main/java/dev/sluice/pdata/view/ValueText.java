package dev.sluice.pdata.view;

import dev.sluice.pdata.internal.ValueFormats;
import java.util.Base64;

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

  /**
   * Any value as Go's {@code AsString} writes it: a string as it is, a bool as {@code true} or
   * {@code false}, an int in decimal, a double as {@link #goDouble}, bytes in standard base64, an
   * array or map as JSON (map keys sorted, HTML characters escaped as Go's {@code encoding/json}
   * does, the empty string when Go cannot write it), an empty value as the empty string. Allocates
   * the string: callers on a hot path write strings, ints and bools themselves and come here for
   * the rest.
   */
  public static String goString(AnyValueView value) {
    switch (value.type()) {
      case STRING:
        return value.stringValue().asString();
      case BOOL:
        return value.boolValue() ? "true" : "false";
      case INT:
        return Long.toString(value.intValue());
      case DOUBLE:
        return ValueFormats.goDouble(value.doubleValue());
      case BYTES:
        byte[] raw = new byte[value.bytesLength()];
        value.copyBytes(raw, 0);
        return Base64.getEncoder().encodeToString(raw);
      case ARRAY:
      case KVLIST:
        return value.json();
      default:
        return "";
    }
  }
}
