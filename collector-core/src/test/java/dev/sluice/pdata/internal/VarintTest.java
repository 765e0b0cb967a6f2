package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedOutputStream;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class VarintTest {

  @Test
  void size32MatchesProtobufAtEveryBitLength() {
    for (int bits = 0; bits <= 32; bits++) {
      for (int value : WireValues.aroundBitLength32(bits)) {
        assertThat(Varint.size32(value))
            .as("size32(%d)", value)
            .isEqualTo(CodedOutputStream.computeUInt32SizeNoTag(value));
      }
    }
  }

  @Test
  void size32MatchesProtobufForRandomValues() {
    SplittableRandom random = new SplittableRandom(32);
    for (int i = 0; i < 100_000; i++) {
      int value = WireValues.randomInt(random);
      assertThat(Varint.size32(value))
          .as("size32(%d)", value)
          .isEqualTo(CodedOutputStream.computeUInt32SizeNoTag(value));
    }
  }

  @Test
  void size64MatchesProtobufAtEveryBitLength() {
    for (int bits = 0; bits <= 64; bits++) {
      for (long value : WireValues.aroundBitLength64(bits)) {
        assertThat(Varint.size64(value))
            .as("size64(%d)", value)
            .isEqualTo(CodedOutputStream.computeUInt64SizeNoTag(value));
      }
    }
  }

  @Test
  void size64MatchesProtobufForRandomValues() {
    SplittableRandom random = new SplittableRandom(64);
    for (int i = 0; i < 100_000; i++) {
      long value = WireValues.randomLong(random);
      assertThat(Varint.size64(value))
          .as("size64(%d)", value)
          .isEqualTo(CodedOutputStream.computeUInt64SizeNoTag(value));
    }
  }

  @Test
  void lengthDelimitedSizeCountsTagLengthAndPayload() {
    int[] fields = {1, 15, 16, 2047, 2048, WireType.MAX_FIELD_NUMBER};
    for (int field : fields) {
      for (int bits = 0; bits <= 30; bits++) {
        for (int payload : WireValues.aroundBitLength32(bits)) {
          if (payload < 0 || payload > Integer.MAX_VALUE - 16) {
            continue;
          }
          int expected =
              CodedOutputStream.computeTagSize(field)
                  + CodedOutputStream.computeUInt32SizeNoTag(payload)
                  + payload;
          assertThat(Varint.lengthDelimitedSize(field, payload))
              .as("field %d, %d payload bytes", field, payload)
              .isEqualTo(expected);
        }
      }
    }
  }
}
