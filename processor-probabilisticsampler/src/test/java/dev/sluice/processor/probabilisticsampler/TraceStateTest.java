package dev.sluice.processor.probabilisticsampler;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TraceStateTest {
  private final TraceState state = new TraceState();
  private final byte[] out = new byte[TraceState.MAX_LENGTH + TraceState.MAX_GROWTH];

  private boolean parse(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    return state.parse(bytes, 0, bytes.length);
  }

  private String written() {
    return new String(out, 0, state.writeTo(out), StandardCharsets.US_ASCII);
  }

  @Test
  void writesOtFirstWithRvThenThThenItsOtherFieldsThenTheOtherVendors() {
    assertThat(parse("vendor=x , ot=zz:1;th:8;rv:00112233445566")).isTrue();
    state.updateThreshold(0xCL << 52);
    assertThat(written()).isEqualTo("ot=rv:00112233445566;th:c;zz:1,vendor=x");
  }

  @Test
  void aThresholdIsNeverLowered() {
    assertThat(parse("ot=th:c")).isTrue();
    assertThat(state.updateThreshold(1L << 55)).isFalse();
    assertThat(written()).isEqualTo("ot=th:c");
  }

  @Test
  void refusesATracestateOverTheW3cLengthLimit() {
    String member = "k=" + "v".repeat(200);
    String longest = String.join(",", member, member, member, member, member, member);
    String atLimit = longest.substring(0, TraceState.MAX_LENGTH);
    assertThat(atLimit).hasSize(TraceState.MAX_LENGTH).doesNotEndWith(",");
    assertThat(parse(atLimit)).isTrue();
    assertThat(parse(atLimit + "v")).isFalse();
  }

  @Test
  void refusesAnOtValueOverItsLengthLimit() {
    String fields = "ot=th:8;x:" + "a".repeat(TraceState.MAX_OTEL_LENGTH - "th:8;x:".length());
    assertThat(parse(fields)).isTrue();
    assertThat(parse(fields + "a")).isFalse();
  }

  @Test
  void aLongestTracestateWithSamplingAddedFitsTheOutputBuffer() {
    String member = "k=" + "v".repeat(250);
    String longest = String.join(",", member, member, member, member).substring(0, 1010);
    assertThat(parse(longest)).isTrue();
    state.setRandomness(SamplingMath.ALL_RANDOMNESS);
    state.updateThreshold(SamplingMath.probabilityToThreshold(0.01, 14));
    String written = written();
    assertThat(written).startsWith("ot=rv:ffffffffffffff;th:fd70a3d70a3d71,k=");
    assertThat(written.length()).isLessThanOrEqualTo(out.length);
  }

  @Test
  void refusesNonAsciiBytes() {
    assertThat(parse("k=v\u00e9")).isFalse();
  }
}
