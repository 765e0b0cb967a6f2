package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ResultLineTest {
  @Test
  void formatsTheExactLine() {
    ResultLine line =
        new ResultLine("traces-blackhole", 2_512_345.6, 301.4, 1.23456, 12.5, 87.6, 0, 98.04);
    assertThat(line.format())
        .isEqualTo(
            "RESULT scenario=traces-blackhole items_per_s=2512346 cpu_ns_per_item=301"
                + " p50_ms=1.235 p99_ms=12.500 rss_mib=88 dropped=0 gen_cpu_pct=98.0");
  }

  @Test
  void fieldsComeInTheSpecifiedOrderAndParseBack() {
    String text = new ResultLine("idle", 0, Double.NaN, 0, 0, 41.2, -3, 0.5).format();
    assertThat(ResultLine.parse(text))
        .containsExactly(
            java.util.Map.entry("scenario", "idle"),
            java.util.Map.entry("items_per_s", "0"),
            java.util.Map.entry("cpu_ns_per_item", "0"),
            java.util.Map.entry("p50_ms", "0.000"),
            java.util.Map.entry("p99_ms", "0.000"),
            java.util.Map.entry("rss_mib", "41"),
            java.util.Map.entry("dropped", "-3"),
            java.util.Map.entry("gen_cpu_pct", "0.5"));
  }

  @Test
  void numbersIgnoreTheDefaultLocale() {
    java.util.Locale saved = java.util.Locale.getDefault();
    try {
      java.util.Locale.setDefault(java.util.Locale.GERMANY);
      assertThat(new ResultLine("x", 1234567, 1, 1.5, 2.5, 3, 0, 4.5).format())
          .contains("items_per_s=1234567", "p50_ms=1.500", "gen_cpu_pct=4.5");
    } finally {
      java.util.Locale.setDefault(saved);
    }
  }

  @Test
  void rejectsNamesThatWouldBreakTheLine() {
    assertThatThrownBy(() -> new ResultLine("a b", 0, 0, 0, 0, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ResultLine("a=b", 0, 0, 0, 0, 0, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ResultLine.parse("DETAIL x=1"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
