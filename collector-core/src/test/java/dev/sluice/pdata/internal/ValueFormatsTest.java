package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.edit.AttributeValue;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The text forms the convert action writes and reads, as Go's strconv and pcommon do. */
class ValueFormatsTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "0.1, 0.1",
    "100, 100",
    "1e20, 100000000000000000000",
    "1e21, 1e+21",
    "1.5e300, 1.5e+300",
    "0.000001, 0.000001",
    "1.5e-7, 1.5e-7",
    "1e-10, 1e-10",
    "-2.25, -2.25",
    "-0.0, -0"
  })
  void writesDoublesAsGoAsStringDoes(double value, String expected) {
    assertThat(ValueFormats.goDouble(value)).isEqualTo(expected);
  }

  @Test
  void writesNanAndInfinitiesAsGoWritesTheirJsonError() {
    assertThat(ValueFormats.goDouble(Double.NaN)).isEqualTo("json: unsupported value: NaN");
    assertThat(ValueFormats.goDouble(Double.NEGATIVE_INFINITY))
        .isEqualTo("json: unsupported value: -Inf");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "0, true, 0",
    "+15, true, 15",
    "-9223372036854775808, true, -9223372036854775808",
    "9223372036854775807, true, 9223372036854775807",
    "9223372036854775808, false, 0",
    "1_000, false, 0",
    "0x10, false, 0",
    "' 1', false, 0",
    "-, false, 0",
    "'', false, 0"
  })
  void parsesIntsAsGoParseIntInBaseTen(String text, boolean parses, long expected) {
    long[] result = {0};
    assertThat(ValueFormats.parseGoInt(utf8(text), 0, utf8(text).length, result)).isEqualTo(parses);
    if (parses) {
      assertThat(result[0]).isEqualTo(expected);
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "1.5, true, 1.5",
    ".5, true, 0.5",
    "5., true, 5",
    "-1e3, true, -1000",
    "0x1.8p1, true, 3",
    "INF, true, Infinity",
    "-infinity, true, -Infinity",
    "1e400, false, 0",
    "1.5f, false, 0",
    "0x10, false, 0",
    "' 1', false, 0",
    "e5, false, 0",
    "+nan, false, 0"
  })
  void parsesDoublesAsGoParseFloat(String text, boolean parses, double expected) {
    double[] result = {0};
    assertThat(ValueFormats.parseGoDouble(utf8(text), 0, utf8(text).length, result))
        .isEqualTo(parses);
    if (parses) {
      assertThat(result[0]).isEqualTo(expected);
    }
  }

  @Test
  void writesBase64WithPaddingAndLongMinInDecimal() {
    byte[] out = new byte[32];
    byte[] input = {(byte) 0xfb, (byte) 0xff, 1, 2};
    int end = ValueFormats.base64(input, 0, input.length, out, 0);
    assertThat(new String(out, 0, end, StandardCharsets.US_ASCII)).isEqualTo("+/8BAg==");
    end = ValueFormats.decimal(Long.MIN_VALUE, out, 0);
    assertThat(new String(out, 0, end, StandardCharsets.US_ASCII))
        .isEqualTo("-9223372036854775808");
  }

  @Test
  void writesMapsAsJsonWithSortedKeysAndHtmlEscaped() {
    byte[] map =
        AttributeValue.kvlist(
                new java.util.LinkedHashMap<>(
                    java.util.Map.of(
                        "z", AttributeValue.string("<a&b>"),
                        "a", AttributeValue.floating(Double.parseDouble("1e-7")))))
            .anyValue();
    assertThat(ValueFormats.json(map, 0, map.length))
        .isEqualTo("{\"a\":1e-7,\"z\":\"\\u003ca\\u0026b\\u003e\"}");
  }
}
