package dev.sluice.processor.probabilisticsampler;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SamplingMathTest {
  private static String tValue(long threshold) {
    byte[] out = new byte[SamplingMath.HEX_DIGITS];
    return new String(
        out, 0, SamplingMath.writeTValue(threshold, out, 0), StandardCharsets.US_ASCII);
  }

  private static long parseT(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
    return SamplingMath.parseTValue(bytes, 0, bytes.length);
  }

  @Test
  void hashThresholdRejectsTheBucketsAboveThePercentageTruncatedInFloat() {
    // 25 % of 16384 buckets = 4096 accepted: 12288 rejected, 0x3000 in the top 14 of 56 bits.
    assertThat(SamplingMath.hashThreshold(25f)).isEqualTo(0x3000L << 42);
    assertThat(tValue(SamplingMath.hashThreshold(25f))).isEqualTo("c");
    // 10 %: 1638.4 buckets truncate to 1638; 14746 = 0x399a rejected.
    assertThat(tValue(SamplingMath.hashThreshold(10f))).isEqualTo("e668");
    assertThat(SamplingMath.hashThreshold(100f)).isEqualTo(SamplingMath.ALWAYS);
    // Less than one bucket samples nothing.
    assertThat(SamplingMath.hashThreshold(0.001f)).isEqualTo(SamplingMath.NEVER);
  }

  @Test
  void hashRandomnessPutsTheComplementedBucketOnTopSoThatBucketsBelowTheRateAreSampled() {
    int bucketBelow = 4095; // sampled at 25 %
    int bucketAt = 4096; // not sampled at 25 %
    long threshold = SamplingMath.hashThreshold(25f);
    assertThat(threshold <= SamplingMath.hashRandomness(0xABCD0000 | bucketBelow)).isTrue();
    assertThat(threshold <= SamplingMath.hashRandomness(0xABCD0000 | bucketAt)).isFalse();
    assertThat(SamplingMath.hashRandomness(-1)).isLessThan(SamplingMath.MAX_ADJUSTED_COUNT);
  }

  private static long bigEndian64(byte[] bytes, int offset) {
    return java.nio.ByteBuffer.wrap(bytes, offset, Long.BYTES).getLong();
  }

  @Test
  void fnvHashOfSeedAndTraceIdIsFnv1aOverTheLittleEndianSeedThenTheIdBytes() {
    byte[] id = new byte[16];
    for (int i = 0; i < id.length; i++) {
      id[i] = (byte) (0xF0 + i);
    }
    byte[] seeded = new byte[20];
    seeded[0] = 0x78;
    seeded[1] = 0x56;
    seeded[2] = 0x34;
    seeded[3] = 0x12;
    System.arraycopy(id, 0, seeded, 4, 16);
    int reference = 0x811c9dc5;
    for (byte b : seeded) {
      reference = (reference ^ (b & 0xFF)) * 0x01000193;
    }
    long high = bigEndian64(id, 0);
    long low = bigEndian64(id, 8);
    assertThat(SamplingMath.fnvHash(0x12345678, high, low)).isEqualTo(reference);
    assertThat(SamplingMath.fnvHash(0x12345678, id, 0, id.length)).isEqualTo(reference);
  }

  @Test
  void probabilityThresholdsRoundToThePrecisionWithMoreDigitsNearZero() {
    assertThat(tValue(SamplingMath.probabilityToThreshold(0.25, 4))).isEqualTo("c");
    assertThat(tValue(SamplingMath.probabilityToThreshold(1 / 3.0, 4))).isEqualTo("aaab");
    assertThat(tValue(SamplingMath.probabilityToThreshold(0.01, 1))).isEqualTo("fd");
    assertThat(tValue(SamplingMath.probabilityToThreshold(0.01, 14))).isEqualTo("fd70a3d70a3d71");
    assertThat(SamplingMath.probabilityToThreshold(1, 4)).isEqualTo(SamplingMath.ALWAYS);
    assertThat(tValue(SamplingMath.ALWAYS)).isEqualTo("0");
    assertThat(tValue(SamplingMath.NEVER)).isEmpty();
  }

  @Test
  void probabilitiesOutsideTheExpressibleRangeHaveNoThreshold() {
    assertThat(SamplingMath.probabilityToThreshold(0, 4)).isEqualTo(-1);
    assertThat(SamplingMath.probabilityToThreshold(SamplingMath.MIN_PROBABILITY / 2, 4))
        .isEqualTo(-1);
    assertThat(SamplingMath.probabilityToThreshold(SamplingMath.MIN_PROBABILITY, 4)).isPositive();
    assertThat(SamplingMath.probabilityToThreshold(1.5, 4)).isEqualTo(-1);
    assertThat(SamplingMath.probabilityToThreshold(Double.NaN, 4)).isEqualTo(-1);
  }

  @Test
  void tValuesExtendWithZerosAndRefuseEmptyLongOrNonHexText() {
    assertThat(parseT("8")).isEqualTo(1L << 55);
    assertThat(parseT("C")).isEqualTo(0xCL << 52);
    assertThat(parseT("ffffffffffffff")).isEqualTo(SamplingMath.MAX_ADJUSTED_COUNT - 1);
    assertThat(parseT("")).isEqualTo(-1);
    assertThat(parseT("fffffffffffffff")).isEqualTo(-1);
    assertThat(parseT("0x")).isEqualTo(-1);
    byte[] rv = "abc".getBytes(StandardCharsets.US_ASCII);
    assertThat(SamplingMath.parseRValue(rv, 0, rv.length)).isEqualTo(-1);
  }
}
