package dev.sluice.pdata.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The build runs tests with {@code java.base/jdk.internal.misc} exported, as the collector's jar
 * does, so these arrays come from the JDK's uninitialized allocation.
 */
class ByteArraysTest {
  @Test
  void skipsZeroingWhereTheExportIsInPlace() {
    assertThat(ByteArrays.uninitializedAvailable()).isTrue();
  }

  @Test
  void arraysHaveTheLengthAskedForAndHoldWhatIsWritten() {
    for (int length : new int[] {0, 1, ByteArrays.MIN_UNINITIALIZED_BYTES - 1, 1024, 430_017}) {
      byte[] bytes = ByteArrays.forOverwrite(length);
      assertThat(bytes).hasSize(length);
      Arrays.fill(bytes, (byte) 0x5A);
      for (byte b : bytes) {
        assertThat(b).isEqualTo((byte) 0x5A);
      }
    }
  }

  @Test
  void eachCallMakesANewArray() {
    byte[] first = ByteArrays.forOverwrite(4096);
    byte[] second = ByteArrays.forOverwrite(4096);
    assertThat(first).isNotSameAs(second);
  }
}
