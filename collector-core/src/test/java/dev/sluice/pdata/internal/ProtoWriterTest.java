package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ProtoWriterTest {
  private static final int[] PAYLOAD_SIZES = {0, 1, 127, 128, 16383, 16384, 2_100_000};

  private interface Encoding {
    void writeTo(CodedOutputStream out) throws IOException;
  }

  private static byte[] expected(Encoding encoding) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    encoding.writeTo(out);
    out.flush();
    return bytes.toByteArray();
  }

  private static byte[] payload(int size, int seed) {
    byte[] bytes = new byte[size];
    new SplittableRandom(seed).nextBytes(bytes);
    return bytes;
  }

  @Test
  void releaseKeepsAnArrayUpToTheLimitAndDropsALargerOne() {
    ProtoWriter writer = new ProtoWriter(64);
    writer.writeBytes(new byte[1000], 0, 1000);
    byte[] grown = writer.array();

    writer.release(1000);
    assertThat(writer.size()).isZero();
    assertThat(writer.array()).isSameAs(grown);

    writer.writeBytes(new byte[5000], 0, 5000);
    byte[] outsized = writer.array();
    writer.release(1000);
    assertThat(writer.size()).isZero();
    assertThat(writer.array()).hasSize(64);
    // The dropped array is left as it was, for whoever still reads it.
    assertThat(outsized).hasSizeGreaterThanOrEqualTo(5000);
    writer.writeVarint32(300);
    assertThat(writer.toByteArray()).containsExactly(0xAC, 0x02);
  }

  @Test
  void varintsMatchProtobuf() throws Exception {
    List<Integer> ints = new ArrayList<>();
    List<Long> longs = new ArrayList<>();
    for (int bits = 0; bits <= 64; bits++) {
      for (long v : WireValues.aroundBitLength64(bits)) {
        longs.add(v);
      }
      if (bits <= 32) {
        for (int v : WireValues.aroundBitLength32(bits)) {
          ints.add(v);
        }
      }
    }
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 20_000; i++) {
      ints.add(WireValues.randomInt(random));
      longs.add(WireValues.randomLong(random));
    }
    // A small writer, so that growing is exercised too.
    ProtoWriter writer = new ProtoWriter(16);
    for (int v : ints) {
      writer.writeVarint32(v);
    }
    for (long v : longs) {
      writer.writeVarint64(v);
    }
    byte[] expected =
        expected(
            out -> {
              for (int v : ints) {
                out.writeUInt32NoTag(v);
              }
              for (long v : longs) {
                out.writeUInt64NoTag(v);
              }
            });
    assertThat(writer.toByteArray()).isEqualTo(expected);
    assertThat(writer.size()).isEqualTo(expected.length);
  }

  @Test
  void fixedValuesMatchProtobuf() throws Exception {
    SplittableRandom random = new SplittableRandom(5);
    long[] values = new long[10_000];
    for (int i = 0; i < values.length; i++) {
      values[i] = i < 64 ? 1L << i : random.nextLong();
    }
    ProtoWriter writer = new ProtoWriter(16);
    writer.writeVarint32(1); // unaligned from here on
    for (long v : values) {
      writer.writeFixed32((int) v);
      writer.writeFixed64(v);
    }
    byte[] expected =
        expected(
            out -> {
              out.writeUInt32NoTag(1);
              for (long v : values) {
                out.writeFixed32NoTag((int) v);
                out.writeFixed64NoTag(v);
              }
            });
    assertThat(writer.toByteArray()).isEqualTo(expected);
  }

  @Test
  void tagsMatchProtobuf() throws Exception {
    int[] fields = {1, 2, 15, 16, 2047, 2048, 262143, 262144, 33554431, WireType.MAX_FIELD_NUMBER};
    ProtoWriter writer = new ProtoWriter(16);
    for (int field : fields) {
      for (int wireType = 0; wireType <= 5; wireType++) {
        writer.writeTag(field, wireType);
      }
    }
    byte[] expected =
        expected(
            out -> {
              for (int field : fields) {
                for (int wireType = 0; wireType <= 5; wireType++) {
                  out.writeTag(field, wireType);
                }
              }
            });
    assertThat(writer.toByteArray()).isEqualTo(expected);
  }

  @Test
  void lengthDelimitedFieldsMatchProtobuf() throws Exception {
    ProtoWriter writer = new ProtoWriter(16);
    for (int size : PAYLOAD_SIZES) {
      byte[] payload = payload(size, size);
      writer.writeLengthDelimitedHeader(size % 1000 + 1, size);
      writer.writeBytes(payload, 0, size);
    }
    // writeBytes honours the source offset.
    byte[] source = payload(300, 1);
    writer.writeLengthDelimitedHeader(7, 100);
    writer.writeBytes(source, 150, 100);
    byte[] expected =
        expected(
            out -> {
              for (int size : PAYLOAD_SIZES) {
                out.writeByteArray(size % 1000 + 1, payload(size, size));
              }
              out.writeByteArray(7, source, 150, 100);
            });
    assertThat(writer.toByteArray()).isEqualTo(expected);
  }

  @Test
  void beginAndEndLengthDelimitedMatchProtobufForTagsOfEverySize() throws Exception {
    for (int field : new int[] {1, 15, 16, 2047, 2048, WireType.MAX_FIELD_NUMBER}) {
      for (int size : new int[] {0, 127, 128}) {
        byte[] payload = payload(size, field);
        ProtoWriter writer = new ProtoWriter(16);
        int mark = writer.beginLengthDelimited(field);
        writer.writeBytes(payload, 0, size);
        writer.endLengthDelimited(mark);
        assertThat(writer.toByteArray())
            .as("field %d, %d payload bytes", field, size)
            .isEqualTo(expected(out -> out.writeByteArray(field, payload)));
      }
    }
  }

  @Test
  void beginAndEndLengthDelimitedMatchProtobufForEveryLengthSize() throws Exception {
    for (int size : PAYLOAD_SIZES) {
      byte[] payload = payload(size, size + 1);
      for (int initialCapacity : new int[] {16, size + 64}) {
        ProtoWriter writer = new ProtoWriter(initialCapacity);
        writer.writeFixed32(0xCAFEBABE); // something before the field
        int mark = writer.beginLengthDelimited(5);
        // Written in pieces, as a transcoder would.
        for (int from = 0; from < size; from += 1000) {
          writer.writeBytes(payload, from, Math.min(1000, size - from));
        }
        writer.endLengthDelimited(mark);
        writer.writeVarint32(300); // and something after
        byte[] expected =
            expected(
                out -> {
                  out.writeFixed32NoTag(0xCAFEBABE);
                  out.writeByteArray(5, payload);
                  out.writeUInt32NoTag(300);
                });
        assertThat(writer.toByteArray())
            .as("%d payload bytes, initial capacity %d", size, initialCapacity)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void nestedBeginAndEndLengthDelimitedMatchProtobuf() throws Exception {
    for (int inner : PAYLOAD_SIZES) {
      for (int outerExtra : new int[] {0, 127, 16384}) {
        byte[] innerPayload = payload(inner, inner);
        byte[] before = payload(outerExtra, 1);
        byte[] after = payload(3, 2);
        ProtoWriter writer = new ProtoWriter(16);
        int outer = writer.beginLengthDelimited(1);
        writer.writeBytes(before, 0, before.length);
        int middle = writer.beginLengthDelimited(2);
        int innermost = writer.beginLengthDelimited(3);
        writer.writeBytes(innerPayload, 0, inner);
        writer.endLengthDelimited(innermost);
        int empty = writer.beginLengthDelimited(4);
        writer.endLengthDelimited(empty);
        writer.endLengthDelimited(middle);
        writer.writeBytes(after, 0, after.length);
        writer.endLengthDelimited(outer);

        byte[] innermostField = expected(out -> out.writeByteArray(3, innerPayload));
        byte[] emptyField = expected(out -> out.writeByteArray(4, new byte[0]));
        byte[] middlePayload = concat(innermostField, emptyField);
        byte[] middleField = expected(out -> out.writeByteArray(2, middlePayload));
        byte[] outerPayload = concat(before, middleField, after);
        byte[] expected = expected(out -> out.writeByteArray(1, outerPayload));
        assertThat(writer.toByteArray())
            .as("inner %d, outer extra %d", inner, outerExtra)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void resetReusesTheArray() {
    ProtoWriter writer = new ProtoWriter(16);
    writer.writeBytes(new byte[1000], 0, 1000);
    byte[] array = writer.array();
    writer.reset();
    assertThat(writer.size()).isZero();
    writer.writeVarint32(150);
    assertThat(writer.array()).isSameAs(array);
    assertThat(writer.toByteArray()).containsExactly(0x96, 0x01);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }
}
