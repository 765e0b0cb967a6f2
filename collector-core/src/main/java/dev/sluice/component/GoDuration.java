package dev.sluice.component;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;

/**
 * Durations in Go's {@code time.ParseDuration} syntax, as OpenTelemetry Collector configurations
 * write them: a sign, then one or more decimal numbers each with a unit ({@code ns}, {@code us} or
 * {@code µs}, {@code ms}, {@code s}, {@code m}, {@code h}), such as {@code 300ms}, {@code 1.5h} or
 * {@code 2h45m}; {@code 0} alone needs no unit. The range is Go's: up to about 292 years.
 */
public final class GoDuration {
  private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);
  private static final BigInteger MIN_MAGNITUDE = MAX.add(BigInteger.ONE);

  private GoDuration() {}

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException if {@code text} is not a Go duration or is out of range
   */
  public static Duration parse(String text) {
    String s = text;
    boolean negative = false;
    if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
      negative = s.charAt(0) == '-';
      s = s.substring(1);
    }
    if (s.equals("0")) {
      return Duration.ZERO;
    }
    if (s.isEmpty()) {
      throw invalid(text);
    }
    BigDecimal nanos = BigDecimal.ZERO;
    int i = 0;
    while (i < s.length()) {
      int start = i;
      while (i < s.length() && isDigit(s.charAt(i))) {
        i++;
      }
      boolean digitsBefore = i > start;
      boolean digitsAfter = false;
      if (i < s.length() && s.charAt(i) == '.') {
        i++;
        int fraction = i;
        while (i < s.length() && isDigit(s.charAt(i))) {
          i++;
        }
        digitsAfter = i > fraction;
      }
      if (!digitsBefore && !digitsAfter) {
        throw invalid(text);
      }
      String number = s.substring(start, i);
      int unitStart = i;
      while (i < s.length() && s.charAt(i) != '.' && !isDigit(s.charAt(i))) {
        i++;
      }
      long unit = unitNanos(s.substring(unitStart, i), text);
      nanos = nanos.add(new BigDecimal(number).multiply(BigDecimal.valueOf(unit)));
    }
    BigInteger whole = nanos.setScale(0, RoundingMode.DOWN).toBigIntegerExact();
    if (whole.compareTo(negative ? MIN_MAGNITUDE : MAX) > 0) {
      throw new IllegalArgumentException("duration " + text + " is out of range");
    }
    return Duration.ofNanos(negative ? whole.negate().longValueExact() : whole.longValueExact());
  }

  /** Writes {@code duration} as Go does: {@code 1h30m0s}, {@code 200ms}, {@code 0s}. */
  public static String format(Duration duration) {
    if (duration.isZero()) {
      return "0s";
    }
    StringBuilder sb = new StringBuilder();
    BigInteger nanos =
        BigInteger.valueOf(duration.getSeconds())
            .multiply(BigInteger.valueOf(1_000_000_000L))
            .add(BigInteger.valueOf(duration.getNano()));
    if (nanos.signum() < 0) {
      sb.append('-');
      nanos = nanos.negate();
    }
    BigInteger second = BigInteger.valueOf(1_000_000_000L);
    if (nanos.compareTo(second) < 0) {
      long n = nanos.longValueExact();
      if (n < 1_000) {
        return sb.append(n).append("ns").toString();
      }
      if (n < 1_000_000) {
        return sb.append(fraction(n, 1_000)).append("µs").toString();
      }
      return sb.append(fraction(n, 1_000_000)).append("ms").toString();
    }
    BigInteger[] hoursRest = nanos.divideAndRemainder(second.multiply(BigInteger.valueOf(3600)));
    BigInteger[] minutesRest =
        hoursRest[1].divideAndRemainder(second.multiply(BigInteger.valueOf(60)));
    if (hoursRest[0].signum() > 0) {
      sb.append(hoursRest[0]).append('h');
    }
    if (hoursRest[0].signum() > 0 || minutesRest[0].signum() > 0) {
      sb.append(minutesRest[0]).append('m');
    }
    return sb.append(fraction(minutesRest[1].longValueExact(), 1_000_000_000L))
        .append('s')
        .toString();
  }

  private static String fraction(long value, long unit) {
    BigDecimal d = BigDecimal.valueOf(value).divide(BigDecimal.valueOf(unit));
    return d.stripTrailingZeros().toPlainString();
  }

  private static long unitNanos(String unit, String text) {
    return switch (unit) {
      case "ns" -> 1L;
      case "us", "µs", "μs" -> 1_000L;
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m" -> 60_000_000_000L;
      case "h" -> 3_600_000_000_000L;
      case "" -> throw new IllegalArgumentException("missing unit in duration " + text);
      default ->
          throw new IllegalArgumentException("unknown unit \"" + unit + "\" in duration " + text);
    };
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static IllegalArgumentException invalid(String text) {
    return new IllegalArgumentException("invalid duration \"" + text + "\"");
  }
}
