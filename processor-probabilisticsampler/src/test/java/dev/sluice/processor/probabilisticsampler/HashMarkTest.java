package dev.sluice.processor.probabilisticsampler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The pre-built mark is the value the general tracestate writer makes for a span without one. */
class HashMarkTest {
  private static final float[] PERCENTAGES = {0.01f, 1, 12.5f, 25, 33.3f, 50, 99.99f, 100};

  @Test
  void writesWhatTheTraceStateWriterWritesForEveryThresholdAndRandomness() {
    SplittableRandom random = new SplittableRandom(7);
    for (float percent : PERCENTAGES) {
      long threshold = SamplingMath.hashThreshold(percent);
      HashMark mark = new HashMark(threshold);
      byte[] written = new byte[mark.length() + 3];
      for (int i = 0; i < 1000; i++) {
        long randomness =
            i == 0
                ? 0
                : i == 1
                    ? SamplingMath.ALL_RANDOMNESS
                    : random.nextLong() & SamplingMath.ALL_RANDOMNESS;
        Arrays.fill(written, (byte) '?');
        mark.writeTo(randomness, written, 3);

        assertThat(Arrays.copyOfRange(written, 3, written.length))
            .as("%s %% with rv %x", percent, randomness)
            .isEqualTo(generalValue(randomness, threshold));
        assertThat(Arrays.copyOf(written, 3)).containsOnly((byte) '?');
      }
    }
  }

  @Test
  void hexDigitsAreTheLowercaseDigitsOfTheValueMostSignificantFirst() {
    SplittableRandom random = new SplittableRandom(11);
    int[] edges = {0, -1, 0x09090909, 0x0a0a0a0a, 0xabcdef12, 0x12345678, Integer.MIN_VALUE};
    for (int i = 0; i < edges.length + 10_000; i++) {
      int value = i < edges.length ? edges[i] : random.nextInt();
      long digits = HashMark.hexDigits(value);
      byte[] bytes = new byte[Long.BYTES];
      for (int b = 0; b < Long.BYTES; b++) {
        bytes[b] = (byte) (digits >>> (Byte.SIZE * (Long.BYTES - 1 - b)));
      }

      assertThat(new String(bytes, StandardCharsets.US_ASCII))
          .as("%08x", value)
          .isEqualTo(String.format(Locale.ROOT, "%08x", value));
    }
  }

  @Test
  void refusesAThresholdThatSamplesNothing() {
    assertThatThrownBy(() -> new HashMark(SamplingMath.NEVER))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static byte[] generalValue(long randomness, long threshold) {
    TraceState state = new TraceState();
    assertThat(state.parse(new byte[0], 0, 0)).isTrue();
    state.setRandomness(randomness);
    assertThat(state.updateThreshold(threshold)).isTrue();
    byte[] text = new byte[TraceState.MAX_LENGTH];
    return Arrays.copyOf(text, state.writeTo(text));
  }
}
